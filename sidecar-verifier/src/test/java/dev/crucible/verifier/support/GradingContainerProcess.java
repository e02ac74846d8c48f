package dev.crucible.verifier.support;

import dev.crucible.contract.GradingContainer;
import dev.crucible.verifier.sandbox.Box;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The rollout pod's grading container, played by a real process: the runner script from the contract
 * jar, run by python3 -I -S as PID 1 of a bubblewrap box standing for the container's file system: the
 * system's /usr and /etc and the interpreter read-only, its own /tmp, the grading volume at the path
 * the sidecar sees it, nothing else of the host (not the sidecar's token, result file or state folder).
 * As root it runs under another uid, as the pod's grading container does. {@link #startAgent} plays an
 * interactive pod's agent-exec container instead: the runner in agent mode, the workspace bound
 * writable at the path the sidecar sees it, owned by the agent's uid.
 */
public final class GradingContainerProcess implements AutoCloseable {
    /** The grading container's uid when the test runs as root (the sidecar's is 0 here). */
    public static final int GRADER_UID = 200_777;
    /** The agent-exec container's uid when the test runs as root: the workspace is handed to it. */
    public static final int AGENT_UID = 200_778;
    private final Process process;
    private final Path log;

    private GradingContainerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Why no such container can run here, or empty. */
    public static Optional<String> unavailable() {
        Box.Availability a = Box.availability();
        if (!a.ok()) return Optional.of("bubblewrap: " + a.problem());
        if (Box.ROOT && !Files.isExecutable(Path.of("/usr/bin/setpriv"))) return Optional.of("setpriv (util-linux)");
        return python().isEmpty() ? Optional.of("python3 with pytest on PATH") : Optional.empty();
    }

    /**
     * Starts the runner for the grading volume {@code volume} (socket {@code volume/runner.sock});
     * {@code box} false stands for a pod whose seccomp profile forbids user namespaces.
     */
    public static GradingContainerProcess start(Path volume, Path work, boolean box) throws IOException {
        return start(volume, work, box, null);
    }

    /**
     * Starts the runner in agent mode for the socket volume {@code volume} (socket {@code volume/runner.sock}),
     * with {@code workspace} writable; as root the workspace is chowned to {@link #AGENT_UID} first.
     */
    public static GradingContainerProcess startAgent(Path volume, Path work, Path workspace) throws IOException {
        if (Box.ROOT) {
            try {
                Process p = new ProcessBuilder("chown", "-R", AGENT_UID + ":" + AGENT_UID, workspace.toString()).inheritIO().start();
                if (p.waitFor() != 0) throw new IOException("chown " + workspace + " failed");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        return start(volume, work, false, workspace);
    }

    private static GradingContainerProcess start(Path volume, Path work, boolean box, Path workspace) throws IOException {
        int uid = workspace == null ? GRADER_UID : AGENT_UID;
        List<String> py = python().orElseThrow();
        String exe = py.get(0);
        String prefix = py.get(1);
        Path script = work.resolve("grading-runner.py");
        Files.writeString(script, GradingContainer.script());
        List<String> cmd = new ArrayList<>();
        String pySource = prefix;
        if (Box.ROOT) {
            // the interpreter may sit under /root (pyenv), which the grader's uid cannot reach: bind it to a
            // stage it can reach in a private mount namespace first, as Box does
            Path stage = Files.createDirectories(work.resolve("stage"));
            Files.setPosixFilePermissions(stage, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            pySource = stage.resolve("python").toString();
            cmd.addAll(List.of("/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                    "set -e; mount -t tmpfs -o mode=0755,size=64k crucible-stage \"$0\"; mkdir \"$0/python\"; "
                            + "mount --bind \"$1\" \"$0/python\"; mount -o remount,bind,ro \"$0/python\"; shift; exec \"$@\"",
                    stage.toString(), prefix, "/usr/bin/setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        }
        cmd.addAll(List.of(Box.availability().bwrap().toString(), "--unshare-all", "--unshare-user", "--die-with-parent", "--as-pid-1",
                "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"));
        // a pod's containers share one network namespace: the grading container shares this machine's, where
        // the test's stand-in for the sidecar's API listens on the loopback
        if (workspace == null) cmd.add("--share-net");
        for (String d : List.of("bin", "lib", "lib64", "sbin")) {
            Path p = Path.of("/", d);
            if (Files.isSymbolicLink(p)) cmd.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), p.toString()));
            else if (Files.isDirectory(p)) cmd.addAll(List.of("--ro-bind", p.toString(), p.toString()));
        }
        if (!prefix.startsWith("/usr/")) cmd.addAll(List.of("--ro-bind", pySource, prefix));
        cmd.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                // the agent-exec container has its socket's volume read-only: connecting needs no write access
                workspace == null ? "--bind" : "--ro-bind", volume.toString(), volume.toString()));
        if (workspace != null) cmd.addAll(List.of("--bind", workspace.toString(), workspace.toString()));
        cmd.addAll(List.of(
                "--ro-bind", script.toString(), GradingContainer.SCRIPT_PATH,
                "--remount-ro", "/", "--clearenv",
                "--setenv", "PATH", Path.of(exe).getParent() + ":/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp",
                "--setenv", "LANG", "C.UTF-8", "--chdir", "/", "--",
                exe, "-I", "-S", GradingContainer.SCRIPT_PATH, "--socket", volume.resolve("runner.sock").toString(),
                "--scratch", "/tmp", "--wait-seconds", "60"));
        if (!box) cmd.add("--no-box");
        if (workspace != null) cmd.addAll(List.of("--mode", "agent"));
        Path log = work.resolve(workspace == null ? "grading-container.log" : "agent-exec-container.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new GradingContainerProcess(p, log);
    }

    /** The real interpreter (not a pyenv shim) and its prefix, when it has pytest. */
    private static Optional<List<String>> python() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import sys, pytest; print(sys.executable); print(sys.base_prefix)")
                    .redirectErrorStream(true).start();
            List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 && lines.size() == 2 ? Optional.of(lines) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    public Process process() { return process; }

    /** What the runner wrote (its hello line, anything that went wrong). */
    public String log() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
