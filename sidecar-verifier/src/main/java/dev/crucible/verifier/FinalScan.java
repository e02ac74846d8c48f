package dev.crucible.verifier;

import dev.crucible.verifier.monitor.HackMonitor;
import dev.crucible.verifier.pristine.PristineSnapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The monitor's last file scan and the protected-file diff of an episode, on a thread of their own while
 * the graded command runs: both only read the workspace, which no longer changes once every agent process
 * is dead. {@link #join} waits for them and passes on what they threw, as a sequential verify would.
 */
final class FinalScan {
    private final CompletableFuture<List<PristineSnapshot.Change>> work;
    private volatile long nanos;
    private long waitNanos;

    private FinalScan(HackMonitor monitor, PristineSnapshot pristine, Path workspace) {
        this.work = CompletableFuture.supplyAsync(() -> {
            long t0 = System.nanoTime();
            try {
                monitor.finishFiles();
                return pristine.changes(workspace);
            } finally {
                nanos = System.nanoTime() - t0;
            }
        }, r -> {
            Thread t = new Thread(r, "crucible-final-scan");
            t.setDaemon(true);
            t.start();
        });
    }

    static FinalScan start(HackMonitor monitor, PristineSnapshot pristine, Path workspace) {
        return new FinalScan(monitor, pristine, workspace);
    }

    /** Waits for the scan and the diff; what they threw is thrown here. */
    void join() {
        long t0 = System.nanoTime();
        try {
            work.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            if (e.getCause() instanceof Error err) throw err;
            throw e;
        } finally {
            waitNanos += System.nanoTime() - t0;
        }
    }

    /** The protected files the agent changed (after {@link #join}). */
    List<PristineSnapshot.Change> changes() {
        join();
        return work.join();
    }

    /** How long the scan and the diff took on their thread. */
    long nanos() { return nanos; }

    /** How long grading waited for them. */
    long waitNanos() { return waitNanos; }
}
