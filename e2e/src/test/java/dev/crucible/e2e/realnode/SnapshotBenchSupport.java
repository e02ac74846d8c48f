package dev.crucible.e2e.realnode;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** The bench's timing, polling and log lines. */
final class SnapshotBenchSupport {
    private SnapshotBenchSupport() {}

    interface Step {
        void run() throws Exception;
    }

    static long timed(Step s) throws Exception {
        long t0 = System.nanoTime();
        s.run();
        return (System.nanoTime() - t0) / 1_000_000;
    }

    static void await(Duration limit, BooleanSupplier done, String what) {
        if (!awaits(limit, done)) {
            throw new IllegalStateException("timed out after " + limit.toSeconds() + " s waiting for " + what);
        }
    }

    /** Polls every 20 ms (the restore time's resolution); false at the limit. */
    static boolean awaits(Duration limit, BooleanSupplier done) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (done.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return done.getAsBoolean();
    }

    static String oneLine(Throwable e) {
        String msg = e.getClass().getSimpleName() + ": " + e.getMessage();
        return msg.replace('\n', ' ').replace('"', '\'');
    }

    static void log(String s) {
        System.err.println("[snapshot-bench] " + s);
    }
}
