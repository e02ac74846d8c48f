package dev.crucible.cli.run;

import java.util.List;
import java.util.concurrent.Semaphore;

/**
 * Starts a run's attempts in plan order, at most {@code parallel} at once. A slot is free again when an
 * attempt's result is written, not when its thread ends: an attempt the watchdog abandoned (its thread stuck
 * on something the agent made) must not hold up the attempts queued behind it.
 */
final class Dispatcher {
    private final Semaphore slots;
    private volatile Thread thread;
    private final List<Thread> workers = new java.util.concurrent.CopyOnWriteArrayList<>();

    Dispatcher(int parallel) {
        this.slots = new Semaphore(parallel);
    }

    void start(List<LocalRollout> rollouts) {
        Thread t = new Thread(() -> {
            for (LocalRollout r : rollouts) {
                try {
                    slots.acquire();
                } catch (InterruptedException stopped) {
                    return;
                }
                if (r.ended()) { // abandoned before it started (Ctrl-C): its result is written
                    slots.release();
                    continue;
                }
                r.outcome().whenComplete((x, e) -> slots.release());
                Thread worker = new Thread(() -> {
                    try {
                        r.run();
                    } catch (Throwable e) { // run() writes a result whatever happens; this is only for what it cannot catch
                        r.outcome().completeExceptionally(e);
                    }
                }, "crucible-rollout");
                worker.setDaemon(true);
                workers.add(worker);
                worker.start();
            }
        }, "crucible-dispatch");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** Whether an attempt's thread still runs although every result is written: it was abandoned, stuck. */
    boolean anyStuck() {
        return workers.stream().anyMatch(w -> {
            try {
                w.join(1000); // a thread that wrote its result ends right after; a stuck one does not
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return w.isAlive();
        });
    }

    void stop() {
        Thread t = thread;
        if (t != null) t.interrupt();
    }
}
