package dev.crucible.cli.run;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The end of a run stopped by SIGINT or SIGTERM, in the JVM's shutdown hook after every attempt was
 * cancelled: each attempt gets {@value #GRACE_S} s (all together) to write its Interrupted result, one whose
 * thread is stuck (a read the agent stalls, a grading command) is abandoned, which writes it; then the
 * summary gets its moment, and the cgroups of boxes this process still holds are swept. The JVM then exits
 * with 128 + the signal: 130 for SIGINT, 143 for SIGTERM.
 */
final class Interruption {
    static final long GRACE_S = 20;

    private Interruption() {}

    static void await(List<LocalRollout> rollouts, CountDownLatch written, PrintWriter out) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(GRACE_S);
        for (LocalRollout r : rollouts) {
            try {
                r.outcome().get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException stuck) {
                r.abandon(true, "interrupted: the attempt did not stop within " + GRACE_S + " s; its result is written without it");
            } catch (ExecutionException crashed) {
                // its thread died of something run() could not catch; nothing more to write
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        try {
            written.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LeftoverBoxes.sweep(ProcessHandle.current().pid()).forEach(d -> {
            synchronized (out) {
                out.println("crucible: removed the leftover cgroup " + d);
                out.flush();
            }
        });
    }
}
