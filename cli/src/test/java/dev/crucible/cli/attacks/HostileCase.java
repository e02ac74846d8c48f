package dev.crucible.cli.attacks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One reader × kind case: a small task workspace (a git repository, a protected conftest.py, a dependency file),
 * a 0600 host file outside it holding a marker, an output folder for what the reader writes, and the
 * cleanup (stop the flipper, release a reader stuck on a FIFO, remove trees deeper than PATH_MAX).
 *
 * <p>The agent's acts ({@link #agent}) are its own processes: as the test's user (root in CI), or, as the attack suite
 * runs every agent a second time, as the throwaway uid ({@link CliProcess#THROWAWAY_UID}, setpriv), which then owns the
 * workspace. That agent cannot read the host file (root's, 0600), make a device, or hard-link the host file
 * (fs.protected_hardlinks); it can still link to it, make FIFOs, sparse files and deep trees. The readers are the
 * host's: this JVM.
 */
final class HostileCase implements AutoCloseable {
    final Path base;
    final Path ws;
    final Path out;
    final Path secret;
    final String marker;
    final List<Path> flipping = new ArrayList<>();
    boolean hardLinked;
    /** What the host file holds: the marker, or what {@link #rotateSecret} last wrote. */
    String expectedSecret;
    /** The agent's uid: null, the test's own user. */
    final Integer uid;
    private Process flipper;

    HostileCase(Integer uid) throws Exception {
        this.uid = uid;
        base = Files.createTempDirectory("crucible-hostile-");
        ws = base.resolve("ws");
        out = Files.createDirectories(base.resolve("out"));
        marker = "HOSTSECRET" + Long.toHexString(System.nanoTime());
        secret = base.resolve("host/secret.txt");
        Files.createDirectories(secret.getParent());
        expectedSecret = marker + "\n";
        Files.writeString(secret, expectedSecret);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        write("calc/__init__.py", "");
        write("calc/ops.py", "def divide(a, b):\n    return a / b\n");
        write("calc/evil.py", "x = 0\n");
        write("tests/test_ops.py", "from calc.ops import divide\n\ndef test_divide():\n    assert divide(4, 2) == 2\n");
        write("tests/conftest.py", "import sys\n");
        write("requirements.txt", "pytest\n");
        git("init", "-q");
        git("add", "-A");
        git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "task");
        if (uid != null) {
            // the agent reaches its workspace and the host file's folder (to link it), never the file's bytes
            Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(secret.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
            CliProcess.chown(ws, uid);
        }
    }

    /** Who the agent is, for skip messages. */
    String who() {
        return uid == null ? "the test's user (" + System.getProperty("user.name") + ")" : "uid " + uid;
    }

    /** Runs {@code script} (sh; $1 the path to plant at, $2 the host file) as the agent; fails the case when it fails. */
    void agent(String script, Path p) throws Exception {
        if (agentExit(script, p) != 0) throw new IOException("the agent's plant failed (" + who() + "): " + script + " at " + p);
    }

    /** As {@link #agent}, returning its exit status (-1: it did not end within 60 s). */
    int agentExit(String script, Path p) throws Exception {
        return HostileKinds.run(agentCommand(List.of("sh", "-c", script, "sh", p.toString(), secret.toString())).toArray(String[]::new));
    }

    private List<String> agentCommand(List<String> cmd) {
        List<String> all = new ArrayList<>();
        // the uid cannot read root's pyenv shims: the system's tools, as CliProcess gives that uid
        if (uid != null) all.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "env", "PATH=/usr/local/bin:/usr/bin:/bin"));
        all.addAll(cmd);
        return all;
    }

    void write(String rel, String text) throws IOException {
        Path p = ws.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardCharsets.UTF_8);
    }

    void git(String... args) throws Exception {
        // safe.directory: as the throwaway uid's (derive's row commits the planted files as the host would meet such a repo)
        List<String> cmd = new ArrayList<>(List.of("git", "-c", "safe.directory=*", "-C", ws.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String o = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException("git " + args[0] + ": " + o);
    }

    void startFlipping() throws IOException {
        List<String> cmd = new ArrayList<>(List.of("python3", "-c", HostileKinds.FLIPPER));
        for (Path p : flipping) cmd.add(p.toString());
        flipper = new ProcessBuilder(agentCommand(cmd)).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** The host file's bytes now (the reader must have written nothing through a link or a hard link). */
    String secretNow() throws IOException {
        return Files.readString(secret);
    }

    /** Rewrites the host file: a reader whose output changes with it has read it. */
    void rotateSecret() throws IOException {
        expectedSecret = marker + "-rotated-" + System.nanoTime() + "\n";
        Files.writeString(secret, expectedSecret);
    }

    @Override
    public void close() throws Exception {
        if (flipper != null) {
            flipper.descendants().forEach(ProcessHandle::destroyForcibly); // setpriv and env exec: python is this process
            flipper.destroyForcibly();
            flipper.waitFor(5, TimeUnit.SECONDS);
        }
        List<Path> targets = new ArrayList<>();
        for (String t : HostileKinds.TARGETS) targets.add(ws.resolve(t));
        HostileKinds.releaseFifos(targets);
        // rm walks trees past PATH_MAX and removes FIFOs and devices without opening them
        HostileKinds.run("rm", "-rf", "--one-file-system", base.toString());
    }
}
