package dev.crucible.snapshot.freeze;

import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.target.ProcessRef;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Fallback when no cgroup can be used: SIGSTOP every process of the tree (root first, so it
 * cannot reap or spawn while we walk). Caveats, and why it is only a fallback: parents see
 * SIGCHLD, a tree that forks during the walk can escape, and CRIU records the tasks as
 * stopped, so a restore needs a SIGCONT afterwards (the engine sends it).
 */
public final class SigstopFreezer {

    private SigstopFreezer() {
    }

    public static void freeze(List<ProcessRef> processes, Duration timeout) {
        // only processes that are still the ones resolved: a pid freed by an exited child may be reused
        Signals.send("STOP", processes.stream().filter(ProcessRef::alive).map(ProcessRef::pid).toList());
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ProcessRef p : processes) {
            while (p.alive() && !stopped(p.pid())) {
                if (System.nanoTime() > deadline) {
                    thaw(processes);
                    throw new FreezeException("pid " + p.pid() + " did not stop within " + timeout.toMillis() + " ms");
                }
                LockSupport.parkNanos(100_000);
            }
        }
    }

    /** SIGCONT only to processes that are still the ones we stopped (pid reuse is checked). */
    public static void thaw(List<ProcessRef> processes) {
        Signals.send("CONT", processes.stream().filter(ProcessRef::alive).map(ProcessRef::pid).toList());
    }

    private static boolean stopped(long pid) {
        try {
            char s = ProcFs.state(pid);
            return s == 'T' || s == 't' || s == 'Z';
        } catch (RuntimeException e) {
            return true; // gone
        }
    }
}
