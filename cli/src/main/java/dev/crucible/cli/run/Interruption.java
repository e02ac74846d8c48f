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
 * thread is stuck (a read the agent stalls) is abandoned, which writes it; one that was grading is abandoned at once (its grade
 * is dropped anyway, and a grading copy of many files cannot be stopped half way). Then the cleanup is the short one
 * ({@link AttemptScratch#INTERRUPTED}), the summary gets its moment, and the cgroups of boxes this process still holds are
 * swept. The JVM then exits with 128 + the signal: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP, within
 * {@value #EXIT_BOUND_S} s.
 */
final class Interruption {
    static final long GRACE_S = 5;
    /**
     * The bound on the time from the signal to the exit: the grace, the short cleanup and its unmount margin, and a second for the
     * result. A service manager's stop (systemd's 90 s, Kubernetes' 30 s) must not have to SIGKILL the CLI: with 100,000 files in the
     * workspace it took 49.7 s before (the grading copy waited for 20 s, then a cleanup bounded by 60 s), 87 s once at load 30.
     */
    static final long EXIT_BOUND_S = 15;
    /** Set once the run is being stopped by a signal: cleanups started from then on take the short bound. */
    static volatile boolean stopping;
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
                // an attempt stopped during grading is not waited for: its grade is not recorded, and the copy may take minutes
                long wait = r.stoppedWhileGrading() ? 0 : Math.max(0, until - System.nanoTime());
                r.outcome().get(wait, TimeUnit.NANOSECONDS);
            } catch (TimeoutException stuck) {
                // each on its own thread: an abandon cleans its attempt up (up to AttemptScratch.CLEANUP + its margin), and
                // one after another N stuck attempts took N times that
                String why = r.stoppedWhileGrading() ? "interrupted during grading: its result is written without waiting for the grade"
                        : "interrupted: the attempt did not stop within " + GRACE_S + " s; its result is written without it";
                Thread t = new Thread(() -> r.abandon(true, why), "crucible-interrupt-abandon");
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
        long cleanupUntil = System.nanoTime() + AttemptScratch.INTERRUPTED.plus(AttemptScratch.INTERRUPTED_MARGIN).plusSeconds(1).toNanos();
        try {
            for (Thread t : abandons) t.join(Math.max(1, (cleanupUntil - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            written.await(3, TimeUnit.SECONDS);
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
