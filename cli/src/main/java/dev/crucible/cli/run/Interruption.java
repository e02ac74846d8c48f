package dev.crucible.cli.run;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The end of a run stopped by SIGINT, SIGTERM or SIGHUP (a closed terminal), in the JVM's shutdown hook after every attempt
 * was cancelled: each attempt gets {@value #GRACE_S} s (all together) to write its Interrupted result, one whose
 * thread is stuck (a read the agent stalls, a grading command) is abandoned, which writes it; then the
 * summary gets its moment, and the cgroups of boxes this process still holds are swept. The JVM then exits
 * with 128 + the signal: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
 */
final class Interruption {
    static final long GRACE_S = 20;
    /** The signal that began the JVM's shutdown ("SIGTERM", "SIGINT", "SIGHUP"), or null: the first one {@link #recordSignals} saw. */
    static volatile String received;
    private static final java.util.concurrent.atomic.AtomicBoolean RECORDING = new java.util.concurrent.atomic.AtomicBoolean();

    private Interruption() {}

    /**
     * The shutdown hook cannot tell SIGTERM from Ctrl-C: a handler in front of the JVM's own notes the signal's name, then
     * hands it on unchanged (the JVM still exits with 128 + the signal). A signal inherited as ignored (nohup) stays ignored.
     * The first signal is the one named: a second (the mount namespace's parent forwarding it, a second Ctrl-C) began nothing.
     */
    @SuppressWarnings("restriction")
    static void recordSignals() {
        if (!RECORDING.compareAndSet(false, true)) return;
        for (String name : List.of("INT", "TERM", "HUP")) {
            try {
                sun.misc.Signal sig = new sun.misc.Signal(name);
                sun.misc.SignalHandler[] jvm = new sun.misc.SignalHandler[1];
                jvm[0] = sun.misc.Signal.handle(sig, s -> {
                    if (received == null) received = "SIG" + s.getName();
                    jvm[0].handle(s);
                });
                if (jvm[0] == sun.misc.SignalHandler.SIG_IGN || jvm[0] == sun.misc.SignalHandler.SIG_DFL) sun.misc.Signal.handle(sig, jvm[0]);
            } catch (IllegalArgumentException | UnsupportedOperationException notOurs) {
                // the JVM keeps this signal (-Xrs) or cannot hand it over: the result then says "a signal"
            }
        }
    }

    /**
     * What result.json's message says for an interrupted attempt: the signal by name when this JVM got one, and the phase it
     * came in ({@code phase}, null when unknown). During grading the grade is dropped, as the contract says for any stop.
     */
    static String message(String contractMessage, dev.crucible.contract.PhaseName phase) {
        String s = received;
        if (s == null && phase == null) return contractMessage;
        return "stopped by " + (s == null ? "a signal" : s) + (phase == null ? "" : switch (phase) {
            case Pending, Initializing -> " during " + phase + " (workspace and setup), before the agent ran";
            case Running -> " while the agent ran (Running), before grading";
            case Verifying -> " during grading (Verifying); the grade is not recorded";
            default -> " in phase " + phase;
        });
    }

    static void await(List<LocalRollout> rollouts, CountDownLatch written, PrintWriter out) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(GRACE_S);
        List<Thread> abandons = new java.util.ArrayList<>();
        for (LocalRollout r : rollouts) {
            try {
                r.outcome().get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException stuck) {
                // each on its own thread: an abandon cleans its attempt up (up to AttemptScratch.CLEANUP + its margin), and
                // one after another N stuck attempts took N times that
                Thread t = new Thread(() -> r.abandon(true, "interrupted: the attempt did not stop within " + GRACE_S
                        + " s; its result is written without it"), "crucible-interrupt-abandon");
                t.setDaemon(true);
                t.start();
                abandons.add(t);
            } catch (ExecutionException crashed) {
                // its thread died of something run() could not catch; nothing more to write
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        long cleanupUntil = System.nanoTime() + AttemptScratch.CLEANUP.plus(AttemptScratch.UNMOUNT_MARGIN).plusSeconds(5).toNanos();
        try {
            for (Thread t : abandons) t.join(Math.max(1, (cleanupUntil - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
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
