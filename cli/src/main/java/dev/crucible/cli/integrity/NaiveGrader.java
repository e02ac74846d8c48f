package dev.crucible.cli.integrity;

import dev.crucible.verifier.pristine.TreeCopy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The baseline a careful grader must beat: the agent's final workspace with the hidden tests copied
 * in, plain {@code python3 -m pytest} in it, reward 1 when pytest exits 0. It runs the agent's code, so
 * it runs under bubblewrap: the file system read-only except its own copy, no network, its own PID
 * namespace (killed whole with bwrap), a fresh /tmp.
 */
final class NaiveGrader {
    /** What the naive grader gave one agent. */
    record Grade(int reward, int exitCode, boolean timedOut, double seconds, String outputTail) {}

    private final Path bwrap;
    private final String python;
    private final long timeoutSeconds;

    NaiveGrader(Path bwrap, String python, long timeoutSeconds) {
        this.bwrap = bwrap;
        this.python = python;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** Why bubblewrap cannot confine code here, or null when it can (one trial run). */
    static String problem(Path bwrap) {
        if (bwrap == null) return "bubblewrap (bwrap) is not installed";
        try {
            Process p = new ProcessBuilder(bwrap.toString(), "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev",
                    "--proc", "/proc", "--tmpfs", "/tmp", "true").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0 ? null : "bwrap cannot create its namespaces here: " + out;
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    Grade grade(Path workspace, Path hiddenDir) throws IOException, InterruptedException {
        Path tree = Files.createTempDirectory("crucible-naive-");
        long t0 = System.nanoTime();
        try {
            Path ws = tree.resolve("ws");
            TreeCopy.copy(workspace, ws);
            copyHidden(hiddenDir, ws);
            List<String> argv = new ArrayList<>(List.of(bwrap.toString(), "--die-with-parent", "--unshare-all", "--new-session",
                    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                    "--bind", ws.toString(), ws.toString(), "--setenv", "HOME", "/tmp", "--chdir", ws.toString(), "--",
                    python, "-m", "pytest", "-q", "-p", "no:cacheprovider"));
            Path log = tree.resolve("pytest.log");
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!done) {
                p.destroyForcibly(); // bwrap's child has PDEATHSIG: the namespace goes with it
                p.waitFor(10, TimeUnit.SECONDS);
            }
            int exit = done ? p.exitValue() : -1;
            return new Grade(done && exit == 0 ? 1 : 0, exit, !done, (System.nanoTime() - t0) / 1e9, tail(log));
        } finally {
            TreeCopy.delete(tree);
        }
    }

    /** Hidden files over the copy; a destination reached through a link (the agent's) is skipped, never followed. */
    private static void copyHidden(Path hiddenDir, Path ws) throws IOException {
        try (Stream<Path> files = Files.walk(hiddenDir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path rel = hiddenDir.relativize(f);
                Path dst = ws.resolve(rel.toString());
                boolean linked = false;
                for (Path p = dst.getParent(); p != null && p.startsWith(ws) && !p.equals(ws); p = p.getParent()) {
                    if (Files.isSymbolicLink(p) || (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))) {
                        linked = true;
                    }
                }
                if (linked) continue;
                Files.createDirectories(dst.getParent());
                Files.deleteIfExists(dst);
                Files.copy(f, dst, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log, StandardCharsets.UTF_8).strip();
            String[] lines = s.split("\n");
            return lines.length == 0 ? "" : lines[lines.length - 1];
        } catch (IOException e) {
            return "";
        }
    }
}
