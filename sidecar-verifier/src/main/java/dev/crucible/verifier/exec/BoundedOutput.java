package dev.crucible.verifier.exec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Drains a stream to the end (so the child never blocks on a full pipe) but keeps only the first bytes. */
final class BoundedOutput implements Runnable {
    private final InputStream in;
    private final int limit;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private volatile boolean truncated;
    /** Where the kept bytes are also written as they come (null: nowhere), so a file shows a command still running. */
    private final java.io.OutputStream tee;

    BoundedOutput(InputStream in, int limit) {
        this(in, limit, null);
    }

    BoundedOutput(InputStream in, int limit, java.io.OutputStream tee) {
        this.in = in;
        this.limit = limit;
        this.tee = tee;
    }

    @Override
    public void run() {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                int room = limit - kept.size();
                if (room > 0) {
                    kept.write(buf, 0, Math.min(room, n));
                    if (tee != null) teeWrite(buf, Math.min(room, n));
                }
                if (n > room) truncated = true;
            }
        } catch (IOException ignored) {
            // the process was killed and its pipe closed: what we kept is the output
        }
    }

    private void teeWrite(byte[] buf, int n) {
        try {
            tee.write(buf, 0, n);
            tee.flush();
        } catch (IOException ignored) {
            // the copy is for watching; the output itself is kept above
        }
    }

    boolean truncated() { return truncated; }

    String text() { return kept.toString(StandardCharsets.UTF_8); }
}
