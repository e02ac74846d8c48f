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

    BoundedOutput(InputStream in, int limit) {
        this.in = in;
        this.limit = limit;
    }

    @Override
    public void run() {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                int room = limit - kept.size();
                if (room > 0) kept.write(buf, 0, Math.min(room, n));
                if (n > room) truncated = true;
            }
        } catch (IOException ignored) {
            // the process was killed and its pipe closed: what we kept is the output
        }
    }

    boolean truncated() { return truncated; }

    String text() { return kept.toString(StandardCharsets.UTF_8); }
}
