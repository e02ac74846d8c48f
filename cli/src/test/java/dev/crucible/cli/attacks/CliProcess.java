package dev.crucible.cli.attacks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * {@code crucible} as its own process, as root or as a throwaway unprivileged uid (setpriv), the way a
 * user starts it. Its own process, not in the test JVM, because an attack that works may kill or trace it.
 *
 * <p>The unprivileged run needs the classpath readable by that uid: jars under /root (~/.m2) are not,
 * so they are hard-linked (or copied) once into a world-readable folder under /var/tmp.
 */
final class CliProcess {
    /** A uid with no passwd entry and no files anywhere: what a CI job or a second user would be. */
    static final int THROWAWAY_UID = 64123;

    /**
     * {@code -Dattacks.before=JAR}: the CLI, as root and as the uid, runs from that jar (the shaded {@code crucible-cli.jar}
     * of an earlier commit, readable by the uid) instead of this build, so a case can be checked to fail on the code
     * before its fix (the "before" table in attacks/README.md).
     */
    static final String BEFORE = System.getProperty("attacks.before");

    record Result(int exit, String output) {}

    private CliProcess() {}

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name")) || Path.of("/root").toFile().canWrite();
    }

    /** Skips the test unless this JVM runs as root (needed to start the CLI as root and to drop to another uid). */
    static void assumeRoot() {
        Assumptions.assumeTrue(isRoot(), "attack suite: this tier needs root (it runs the CLI as root and as uid " + THROWAWAY_UID + ")");
    }

    /** Skips the test unless bwrap exists and can create its namespaces for {@code uid} (null: this user). */
    static void assumeBubblewrapFor(Integer uid) throws Exception {
        Path bwrap = java.util.stream.Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":"))
                .filter(d -> !d.isEmpty()).map(d -> Path.of(d, "bwrap")).filter(Files::isExecutable).findFirst().orElse(null);
        Assumptions.assumeTrue(bwrap != null, "attack suite: bubblewrap (bwrap) is not installed; nothing was attacked");
        List<String> cmd = new ArrayList<>();
        if (uid != null) {
            Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "attack suite: setpriv is missing; no unprivileged run");
            cmd.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        }
        cmd.addAll(List.of(bwrap.toString(), "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev",
                "--proc", "/proc", "--tmpfs", "/tmp", "true"));
        Process p = new ProcessBuilder(cmd).directory(Path.of("/").toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        Assumptions.assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
                "attack suite: bubblewrap cannot create namespaces" + (uid == null ? "" : " for uid " + uid) + ": " + out);
    }

    /**
     * Runs {@code crucible ARGS...}; {@code agentCmdWithPid}, when given, is appended as
     * {@code --agent-cmd} with {@code $CLI_PID} replaced by the CLI's own pid (the shell execs java, so
     * the shell's pid is the CLI's).
     */
    static Result run(Integer uid, Path home, List<String> args, String agentCmdWithPid, long timeoutSeconds) throws Exception {
        Process p = builder(uid, home, args, agentCmdWithPid, DEFAULT_HEAP).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes(); // until the CLI (and anything holding its stdout) ends
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(-1, new String(out, StandardCharsets.UTF_8) + "\n[timed out after " + timeoutSeconds + " s]");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /**
     * As {@link #run}, but started and left running, its output (stdout and stderr) going to {@code log}:
     * for runs that may hang (the caller bounds them) or that are signalled while they run.
     */
    static Process start(Integer uid, Path home, List<String> args, String agentCmdWithPid, Path log) throws Exception {
        return start(uid, home, args, agentCmdWithPid, log, Map.of());
    }

    /** The CLI's Java heap unless {@link #HEAP} in a started CLI's variables says otherwise. */
    static final String DEFAULT_HEAP = "512m";
    /** A variable of {@link #start}'s map that sets the CLI's heap (-Xmx) instead of {@link #DEFAULT_HEAP}; not passed on. */
    static final String HEAP = "CRUCIBLE_TEST_HEAP";

    /** As above, with these variables added to the CLI's environment. */
    static Process start(Integer uid, Path home, List<String> args, String agentCmdWithPid, Path log, Map<String, String> env) throws Exception {
        ProcessBuilder pb = builder(uid, home, args, agentCmdWithPid, env.getOrDefault(HEAP, DEFAULT_HEAP));
        pb.environment().putAll(env);
        pb.environment().remove(HEAP);
        return pb.redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
    }

    private static ProcessBuilder builder(Integer uid, Path home, List<String> args, String agentCmdWithPid, String heap) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = BEFORE != null ? BEFORE : uid == null ? System.getProperty("java.class.path") : readableClasspath();
        List<String> cmd = new ArrayList<>();
        if (uid != null) cmd.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        String script = "exec \"$@\"" + (agentCmdWithPid == null ? "" : " --agent-cmd \"" + agentCmdWithPid.replace("$CLI_PID", "$$") + "\"");
        cmd.addAll(List.of("sh", "-c", script, "sh", java, "-Xmx" + heap, "-cp", cp, "dev.crucible.cli.Main"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(home.toFile());
        Map<String, String> env = pb.environment();
        env.put("HOME", home.toString());
        env.remove("CRUCIBLE_SNAPSHOTS");
        if (uid != null) {
            // the pyenv shims under /root are unreadable for this uid; the system python is what it has
            env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        }
        return pb;
    }

    private static String cachedClasspath;

    /** The test classpath as {@link #THROWAWAY_UID} can read it. */
    static synchronized String readableClasspath() throws IOException {
        if (cachedClasspath != null) return cachedClasspath;
        Path dir = Path.of("/var/tmp", "crucible-attack-classpath-" + ProcessHandle.current().pid());
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> entries = new ArrayList<>();
        int i = 0;
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(e);
            if (!p.startsWith("/root") || !Files.isRegularFile(p)) {
                entries.add(e);
                continue;
            }
            Path link = dir.resolve((i++) + "-" + p.getFileName());
            try {
                Files.createLink(link, p);
            } catch (IOException | UnsupportedOperationException notSameFs) {
                Files.copy(p, link);
            }
            entries.add(link.toString());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                AttackHost.delete(dir);
            } catch (IOException ignored) {
                // best effort: a stale folder of links under /var/tmp
            }
        }));
        cachedClasspath = String.join(java.io.File.pathSeparator, entries);
        return cachedClasspath;
    }

    /** chown -R for the unprivileged run's own folders (its out and manifest folders). */
    static void chown(Path root, int uid) throws Exception {
        Process p = new ProcessBuilder("chown", "-R", uid + ":" + uid, root.toString()).inheritIO().start();
        if (p.waitFor() != 0) throw new IOException("chown " + root + " failed");
    }
}
