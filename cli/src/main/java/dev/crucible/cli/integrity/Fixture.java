package dev.crucible.cli.integrity;

import dev.crucible.verifier.pristine.TreeCopy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fixture environment made runnable in a work folder: its manifest and hidden tests copied, and
 * its git repository built by the fixture's own {@code build-repo.sh} (fixed authors and dates, so the
 * task commit the manifest names is the one built). Building into the work folder keeps the checkout
 * clean and lets runs proceed side by side.
 */
public record Fixture(Path manifest, Path hiddenDir, String taskCommit) {
    static final String MANIFEST = "environment.yaml";
    private static final Pattern COMMIT = Pattern.compile("(?m)^\\s+commit:\\s*([0-9a-f]{7,40})\\s*$");

    static Fixture prepare(Path fixtureDir, Path workDir) throws IOException, InterruptedException {
        Path src = fixtureDir.resolve(MANIFEST);
        if (!Files.isRegularFile(src)) throw new IOException(src + ": no such file (--fixture must hold environment.yaml)");
        Matcher m = COMMIT.matcher(Files.readString(src));
        if (!m.find()) throw new IOException(src + ": spec.source.commit: not found");
        String commit = m.group(1);
        Path env = workDir.resolve("env");
        Files.createDirectories(env);
        Files.copy(src, env.resolve(MANIFEST));
        TreeCopy.copy(fixtureDir.resolve("hidden"), env.resolve("hidden"));
        Path log = workDir.resolve("build-repo.log");
        Process p = new ProcessBuilder(List.of("sh", fixtureDir.resolve("build-repo.sh").toString(), env.resolve("repo").toString()))
                .redirectError(log.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(fixtureDir.resolve("build-repo.sh") + ": failed; see " + log);
        }
        if (!commit.startsWith(out) && !out.startsWith(commit)) {
            throw new IOException(src + ": spec.source.commit: " + commit + " but build-repo.sh built the task commit as " + out
                    + " (history/ changed: put the new commit in the manifest)");
        }
        return new Fixture(env.resolve(MANIFEST), env.resolve("hidden"), commit);
    }
}
