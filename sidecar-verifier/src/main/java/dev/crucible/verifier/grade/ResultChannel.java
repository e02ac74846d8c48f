package dev.crucible.verifier.grade;

import dev.crucible.verifier.exec.GradingPhases;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The grader's end of a result channel: a FIFO in the results directory, read by a thread started
 * before the graded command, while it runs. The command gets the FIFO as fd 3 from the executor
 * ({@code ExecRequest.resultChannel}); its reporter writes JSON lines carrying {@link #nonce()}.
 * Nothing a command does can make {@link #finish} hang: a command that never opens the channel is
 * unblocked by the grader opening it itself, and a leftover writer that keeps it open is given up on
 * after a grace period (reported as {@code stillOpen}).
 */
public final class ResultChannel {
    /** The private folder of spare FIFOs: "crucible-channels-PID-START-…", swept by the next CLI once its owner is gone. */
    public static final String CHANNELS_PREFIX = "crucible-channels-";
    /** More than any honest run writes; a flood beyond it is itself suspicious. */
    static final int MAX_LINES = 200_000;
    static final int MAX_LINE_BYTES = 64 * 1024;

    private final Path fifo;
    private final String nonce;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;
    private volatile boolean opened;
    private volatile boolean overflow;
    private volatile boolean eof;

    /** What was read: the lines, whether the reader hit a limit, and whether a writer still held the channel. */
    public record Lines(List<String> lines, boolean overflow, boolean stillOpen) {}

    private ResultChannel(Path fifo, String nonce) {
        this.fifo = fifo;
        this.nonce = nonce;
        this.reader = new Thread(this::read, "result-channel-" + fifo.getFileName());
        reader.setDaemon(true);
        reader.start();
    }

    /** Creates a fresh FIFO in {@code dir} and starts reading it. */
    public static ResultChannel open(Path dir) {
        long t0 = System.nanoTime();
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        String nonce = HexFormat.of().formatHex(b);
        Path fifo = dir.resolve("channel-" + nonce.substring(0, 8) + ".fifo");
        try {
            Files.createDirectories(dir);
            if (!Spares.take(fifo)) mkfifo(fifo);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ResultChannel c = new ResultChannel(fifo, nonce);
        GradingPhases.since("setup", t0);
        return c;
    }

    private static void mkfifo(Path fifo) throws IOException {
        try {
            Process p = new ProcessBuilder("mkfifo", "-m", "600", fifo.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException("mkfifo " + fifo + ": " + out.strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while making " + fifo, e);
        }
    }

    /**
     * One FIFO made ahead of time in a private (0700) folder of this JVM, moved into place by {@link #open}:
     * Java cannot make a FIFO itself, and a {@code mkfifo} process on the grading path costs more than the
     * rest of opening the channel. A move across file systems fails, and {@link #open} makes one as before.
     */
    private static final class Spares {
        private static Path dir;
        private static Path spare;
        private static boolean making;

        static synchronized boolean take(Path target) {
            Path s = spare;
            spare = null;
            refill();
            if (s == null) return false;
            try {
                Files.move(s, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                return true;
            } catch (IOException | UnsupportedOperationException e) {
                try {
                    Files.deleteIfExists(s);
                } catch (IOException ignored) {
                    // in our private folder; removed with it at exit
                }
                return false;
            }
        }

        private static void refill() {
            if (making) return;
            making = true;
            Thread t = new Thread(() -> {
                Path made = null;
                try {
                    synchronized (Spares.class) {
                        if (dir == null) {
                            dir = Files.createTempDirectory(CHANNELS_PREFIX + dev.crucible.verifier.exec.ProcessTable.selfTag() + "-", java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
                            dir.toFile().deleteOnExit();
                        }
                    }
                    Path f = dir.resolve("spare-" + System.nanoTime() + ".fifo");
                    mkfifo(f);
                    f.toFile().deleteOnExit();
                    made = f;
                } catch (IOException | RuntimeException e) {
                    // no spare: open() makes its FIFO itself
                } finally {
                    synchronized (Spares.class) {
                        if (made != null) spare = made;
                        making = false;
                    }
                }
            }, "result-channel-spare");
            t.setDaemon(true);
            t.start();
        }
    }

    public Path path() { return fifo; }

    /** The per-run secret the reporter puts on each line (handed over in the environment, removed at import). */
    public String nonce() { return nonce; }

    /** Call after the command ended: waits up to {@code graceMs} for the last writer to close, returns what was read. */
    public Lines finish(long graceMs) {
        long t0 = System.nanoTime();
        try {
            return finishNow(graceMs);
        } finally {
            GradingPhases.since("parse", t0);
        }
    }

    private Lines finishNow(long graceMs) {
        if (!opened) {
            // The command never opened the channel: open it ourselves so the reader's open() returns.
            try (RandomAccessFile unblock = new RandomAccessFile(fifo.toFile(), "rw")) {
                opened = true;
            } catch (IOException ignored) {
                // the reader sees no writer; the join below bounds the wait
            }
        }
        try {
            reader.join(graceMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (lines) {
            return new Lines(List.copyOf(lines), overflow, !eof);
        }
    }

    private void read() {
        try (InputStream in = new FileInputStream(fifo.toFile())) {
            opened = true;
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            boolean tooLong = false;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    byte c = buf[i];
                    if (c != '\n') {
                        if (line.size() < MAX_LINE_BYTES) line.write(c);
                        else tooLong = true;
                        continue;
                    }
                    add(tooLong ? null : line.toString(StandardCharsets.UTF_8));
                    line.reset();
                    tooLong = false;
                }
            }
            if (line.size() > 0 || tooLong) add(null); // a last line without its newline: cut off
            eof = true;
        } catch (IOException e) {
            eof = true;
        }
    }

    /** A line cut off or over the size limit becomes an empty line, which the parser reports as unreadable. */
    private void add(String line) {
        synchronized (lines) {
            if (lines.size() >= MAX_LINES) {
                overflow = true;
                return;
            }
            lines.add(line == null ? "" : line);
        }
    }
}
