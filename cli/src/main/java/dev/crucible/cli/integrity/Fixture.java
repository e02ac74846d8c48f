package dev.crucible.cli.integrity;

import dev.crucible.verifier.pristine.TreeCopy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The fixture environment made runnable in a work folder: its manifest and hidden tests copied, and
 * its git repository built by the fixture's own {@code build-repo.sh} (fixed authors and dates, so the
 * task commit the manifest names is the one built). Building into the work folder keeps the checkout
 * clean and lets runs proceed side by side.
 */
public record Fixture(Path manifest, Path hiddenDir, String taskCommit) {
    static final String MANIFEST = "environment.yaml";

    static Fixture prepare(Path fixtureDir, Path workDir) throws IOException, InterruptedException {
        Path src = fixtureDir.resolve(MANIFEST);
        if (!Files.isRegularFile(src)) throw new IOException(src + ": no such file (--fixture must hold environment.yaml)");
        // read as YAML, as validate reads it: a quoted commit is the same commit (blind round 18's fixture was refused)
        String commit;
        try {
            commit = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(src.toFile()).path("spec").path("source").path("commit").asText("");
        } catch (IOException e) {
            throw new IOException(src + ": not YAML: " + e.getMessage());
        }
        if (!commit.matches("[0-9a-f]{7,40}")) throw new IOException(src + ": spec.source.commit: " + (commit.isEmpty() ? "not found" : "'" + commit + "' is not a commit id (7 to 40 hex digits)"));
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
