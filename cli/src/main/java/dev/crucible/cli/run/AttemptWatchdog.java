package dev.crucible.cli.run;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Ends an attempt by its deadline even when the thread that runs it is stuck: the live monitor, grading
 * or a copy can block on something the agent made (a FIFO at .git/HEAD is opened with a read that waits
 * for a writer that never comes), and the attempt's own loop, which checks the deadline, is then stuck too.
 * One daemon thread for all attempts ticks twice a second and reads only volatile facts, so nothing the
 * agent does can stall it; it takes no lock the monitor or grading takes.
 *
 * <ul>
 * <li>{@value #STOP_GRACE_S} s past the deadline, before grading: the agent's processes are killed by the pid recorded
 * at their start, only while it still names that process (its start time); the attempt's loop normally did this already;</li>
 * <li>{@value #RUN_GRACE_S} s past the deadline, still not grading: the attempt is abandoned, TimedOut;</li>
 * <li>grading running longer than the verifier's timeout plus {@value #GRADING_MARGIN_S} s (the kill, the tree
 * copy and the last scan): abandoned, TimedOut.</li>
 * </ul>
 * Abandoning ({@link LocalRollout#abandon}) writes result.json from what was seen, closes the sandbox (its
 * processes and cgroups) and removes the state folder; the stuck thread is left behind, a daemon.
 */
final class AttemptWatchdog {
    static final long STOP_GRACE_S = 2;
    static final long RUN_GRACE_S = 15;
    static final long GRADING_MARGIN_S = 60;

    private static final ScheduledExecutorService TICKER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "crucible-attempt-watchdog");
        t.setDaemon(true);
        return t;
    });

    /**
     * What the watchdog needs of an attempt; every call must be non-blocking.
     *
     * @param ended          whether its result is written
     * @param deadlineNanos  System.nanoTime() past which the rollout's deadline has passed
     * @param verifyingSince System.nanoTime() when grading started, 0 before
     * @param gradingTimeout how long grading may take (the verifier's own timeout)
     * @param stopAgent      kills the agent's (and setup's) processes by recorded pid and start time, marking the attempt timed out
     * @param abandon        ends the attempt without its stuck thread (a no-op once it ended)
     */
    record Watched(java.util.function.BooleanSupplier ended, long deadlineNanos, java.util.function.LongSupplier verifyingSince,
                   Duration gradingTimeout, java.util.function.Consumer<String> stopAgent, java.util.function.Consumer<String> abandon) {
    }

    private AttemptWatchdog() {}

    /** Watches {@code a} until it ends. */
    static void watch(Watched a) {
        boolean[] stopped = {false};
        ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
        synchronized (self) {
            self[0] = TICKER.scheduleAtFixedRate(() -> {
                synchronized (self) {
                    if (a.ended().getAsBoolean()) {
                        self[0].cancel(false);
                        return;
                    }
                    long now = System.nanoTime();
                    long v = a.verifyingSince().getAsLong();
                    String why = tick(a, now, v, stopped);
                    if (why != null) {
                        self[0].cancel(false);
                        // its own thread: closing a sandbox or deleting a big state folder must not hold up other attempts' ticks
                        Thread t = new Thread(() -> a.abandon().accept(why), "crucible-attempt-abandon");
                        t.setDaemon(true);
                        t.start();
                    }
                }
            }, 500, 500, TimeUnit.MILLISECONDS);
        }
    }

    /** One look at the attempt: stops its agent when due, and returns why it must be abandoned now, or null. */
    static String tick(Watched a, long now, long verifyingSince, boolean[] stopped) {
        long over = now - a.deadlineNanos();
        if (verifyingSince == 0) {
            if (over > TimeUnit.SECONDS.toNanos(STOP_GRACE_S) && !stopped[0]) {
                stopped[0] = true;
                a.stopAgent().accept("watchdog: the deadline passed " + STOP_GRACE_S + " s ago and the attempt is not grading: its agent is killed");
            }
            if (over > TimeUnit.SECONDS.toNanos(RUN_GRACE_S)) {
                return "watchdog: " + RUN_GRACE_S + " s past the deadline and grading has not started (the attempt's thread is stuck,"
                        + " e.g. on a read of a file the agent made): the attempt ends now";
            }
            return null;
        }
        Duration bound = a.gradingTimeout().plusSeconds(GRADING_MARGIN_S);
        if (now - verifyingSince > bound.toNanos()) {
            return "watchdog: grading ran past its bound of " + bound.toSeconds() + " s (the verifier's timeout plus "
                    + GRADING_MARGIN_S + " s): the attempt ends now";
        }
        return null;
    }
}
