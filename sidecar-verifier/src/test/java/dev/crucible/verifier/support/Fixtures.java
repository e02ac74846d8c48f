package dev.crucible.verifier.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Real temporary repositories built from the bundled example, and agents run as real processes. */
public final class Fixtures {
    private Fixtures() {}

    public static Path repoRoot() {
        String p = System.getProperty("crucible.repo.root");
        if (p != null && Files.isDirectory(Path.of(p, "examples"))) return Path.of(p);
        Path d = Path.of("").toAbsolutePath();
        while (d != null && !Files.isDirectory(d.resolve("examples/python-bugfix"))) d = d.getParent();
        if (d == null) throw new IllegalStateException("cannot find the repository root");
        return d;
    }

    public static Path example() { return repoRoot().resolve("examples/python-bugfix"); }

    /** A copy of the example environment (manifest, workspace, agents) in {@code dir}; returns the manifest. */
    public static Path copyExample(Path dir) {
        copyTree(example(), dir);
        return dir.resolve("environment.yaml");
    }

    public static void copyTree(Path src, Path dst) {
        try (Stream<Path> s = Files.walk(src)) {
            for (Path p : s.toList()) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(t);
                else if (!p.toString().contains("__pycache__") && !p.toString().contains(".pytest_cache")) Files.copy(p, t, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs a shell script as an external agent in its own session, registering it before it runs anything. */
    public static int runAgent(dev.crucible.verifier.Episode ep, String script) {
        try {
            Process p = new ProcessBuilder(List.of("/usr/bin/setsid", "/bin/sh", "-c", script))
                    .directory(ep.workspace().toFile()).redirectErrorStream(true).start();
            ep.attachAgentProcess(p.pid());
            p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            if (!p.waitFor(60, TimeUnit.SECONDS)) p.destroyForcibly();
            return p.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static void git(Path dir, String... args) {
        try {
            List<String> cmd = new java.util.ArrayList<>(List.of("git", "-c", "user.email=t@example.com", "-c", "user.name=t",
                    "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) throw new IllegalStateException("git " + String.join(" ", args) + ": " + out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static void deleteTree(Path p) {
        if (!Files.exists(p)) return;
        try (Stream<Path> s = Files.walk(p)) {
            s.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
