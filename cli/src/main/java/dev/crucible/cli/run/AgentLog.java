package dev.crucible.cli.run;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * agent.log with a cap (issue 34): an agent that prints without end must not fill the host's disk through
 * its log. The agent's output comes over a pipe; the file keeps its first {@code head} bytes and its last
 * {@code tail} bytes, and between them one line that says how many bytes were cut. The tail is rewritten at
 * most every {@link #FLUSH_MS} and at the end, so the file is never larger than head + tail + that line,
 * and the run's progress lines still see the agent's latest line. The pipe is always drained, also once
 * the file cannot be written (a full volume), so the agent never blocks on its own output.
 */
final class AgentLog {
    /** What agent.log keeps of a long output: the start (where errors of set-up show) and the end. */
    static final long HEAD = 8L << 20;
    static final int TAIL = 8 << 20;
    private static final long FLUSH_MS = 500;

    private final FileChannel out;
    private final long head;
    private final byte[] ring;
    private final Thread pump;
    private long headWritten;
    private long beyond; // bytes after the head, kept (up to ring.length) or cut
    private int ringEnd; // next write position in ring
    private long lastFlush;
    private boolean broken;

    private AgentLog(FileChannel out, long head, int tail, InputStream in) {
        this.out = out;
        this.head = head;
        this.ring = new byte[tail];
        this.pump = new Thread(() -> pump(in), "crucible-agent-log");
        pump.setDaemon(true); // an orphan holding the pipe open must not hold the JVM
    }

    /** Starts copying {@code in} (the agent's stdout and stderr) into {@code log}, created or truncated. */
    static AgentLog start(InputStream in, Path log) throws IOException {
        return start(in, log, HEAD, TAIL);
    }

    static AgentLog start(InputStream in, Path log, long head, int tail) throws IOException {
        FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        AgentLog l = new AgentLog(ch, head, tail, in);
        l.pump.start();
        return l;
    }

    /**
     * Waits up to {@code wait} for the output to end (the agent's processes are dead by now, so their pipe is
     * closed, unless something outside the box still holds it), then writes the tail; the log is whole after it.
     */
    void finish(Duration wait) throws InterruptedException {
        pump.join(Math.max(1, wait.toMillis()));
        if (pump.isAlive()) {
            synchronized (this) {
                flushTail();
            }
        }
    }

    /** Bytes of output the log left out so far. */
    synchronized long cut() {
        return Math.max(0, beyond - ring.length);
    }

    private void pump(InputStream in) {
        byte[] buf = new byte[65536];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (this) {
                    take(buf, n);
                }
            }
        } catch (IOException e) {
            // the pipe broke (the process and its streams were closed): what came is written below
        } finally {
            synchronized (this) {
                flushTail();
                try {
                    out.close();
                } catch (IOException ignored) {
                    // the data is in the file or the file cannot take it; nothing to do either way
                }
            }
        }
    }

    private void take(byte[] b, int len) {
        int off = 0;
        if (headWritten < head) {
            int n = (int) Math.min(len, head - headWritten);
            write(ByteBuffer.wrap(b, 0, n), headWritten);
            headWritten += n;
            off = n;
        }
        if (off == len) return;
        for (int i = off; i < len; ) { // into the ring: the last ring.length bytes after the head
            int n = Math.min(len - i, ring.length - ringEnd);
            System.arraycopy(b, i, ring, ringEnd, n);
            ringEnd = (ringEnd + n) % ring.length;
            i += n;
        }
        beyond += len - off;
        long now = System.nanoTime() / 1_000_000;
        if (now - lastFlush >= FLUSH_MS) flushTail();
    }

    /** Rewrites everything after the head: the line that says what was cut (when anything was), then the ring, oldest first. */
    private void flushTail() {
        lastFlush = System.nanoTime() / 1_000_000;
        if (beyond == 0 || broken || !out.isOpen()) return;
        int kept = (int) Math.min(beyond, ring.length);
        long cut = beyond - kept;
        long pos = head;
        try {
            out.truncate(head);
            if (cut > 0) {
                String line = "\n[crucible: " + cut + " bytes of the agent's output cut here; agent.log keeps the first " + head
                        + " and the last " + kept + " of " + (head + beyond) + " bytes]\n";
                pos += write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)), pos);
            }
            int start = kept < ring.length ? 0 : ringEnd; // not yet wrapped: the ring holds bytes 0..kept
            if (start + kept <= ring.length) {
                write(ByteBuffer.wrap(ring, start, kept), pos);
            } else {
                int first = ring.length - start;
                pos += write(ByteBuffer.wrap(ring, start, first), pos);
                write(ByteBuffer.wrap(ring, 0, kept - first), pos);
            }
        } catch (IOException e) {
            broken = true;
        }
    }

    private int write(ByteBuffer b, long pos) {
        int n = b.remaining();
        if (broken) return n;
        try {
            while (b.hasRemaining()) pos += out.write(b, pos);
        } catch (IOException e) {
            broken = true; // a full volume: keep draining the pipe, stop writing
        }
        return n;
    }
}
