package dev.crucible.verifier.grade.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The files of the workers' FIFO folder the host makes: each box's FIFO pair, and {@code NAME.failed} when a box will
 * not come. The folder is read-only in every box; the waiting side (oracle_launch, oracle_child_relay) reads the reason.
 */
public final class WorkerFifos {
    private WorkerFifos() {}

    /** Makes each FIFO, readable and writable by every uid (the grading box's and the workers' differ). */
    public static void mkfifo(Path... fifos) throws IOException {
        try {
            List<String> argv = new ArrayList<>(List.of("mkfifo", "-m", "666"));
            for (Path f : fifos) argv.add(f.toString());
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException("mkfifo " + List.of(fifos) + ": " + out.strip());
            for (Path f : fifos) Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted making " + List.of(fifos));
        }
    }

    /**
     * Writes why box {@code name} ("N" or "cN") will not start, whole or not at all (a rename): the waiting side fails at
     * once with the reason instead of at the end of its wait. It ignores a file older than its own request.
     */
    public static void failed(Path dir, String name, String why) throws IOException {
        Path tmp = Files.createTempFile(dir, name, ".tmp");
        try {
            Files.writeString(tmp, why, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            Files.move(tmp, dir.resolve(name + ".failed"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
