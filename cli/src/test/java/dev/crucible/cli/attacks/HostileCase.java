package dev.crucible.cli.attacks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One reader × kind case: a small task workspace (a git repository, a protected conftest.py, a dependency file),
 * a 0600 host file outside it holding a marker, an output folder for what the reader writes, and the
 * cleanup (stop the flipper, release a reader stuck on a FIFO, remove trees deeper than PATH_MAX).
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
    private final AtomicBoolean stop = new AtomicBoolean();
    private Thread flipper;

    HostileCase() throws Exception {
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
    }

    void write(String rel, String text) throws IOException {
        Path p = ws.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardCharsets.UTF_8);
    }

    void git(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", ws.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String o = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException("git " + args[0] + ": " + o);
    }

    void startFlipping() {
        flipper = HostileKinds.flipper(flipping, stop);
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
        stop.set(true);
        if (flipper != null) flipper.join(5000);
        List<Path> targets = new ArrayList<>();
        for (String t : HostileKinds.TARGETS) targets.add(ws.resolve(t));
        HostileKinds.releaseFifos(targets);
        // rm walks trees past PATH_MAX and removes FIFOs and devices without opening them
        HostileKinds.run("rm", "-rf", "--one-file-system", base.toString());
    }
}
