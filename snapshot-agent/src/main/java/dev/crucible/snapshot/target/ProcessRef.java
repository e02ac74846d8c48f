package dev.crucible.snapshot.target;

/**
 * A process identified by pid plus its start time (clock ticks since boot, field 22 of
 * /proc/PID/stat), so a recycled pid is never mistaken for the process we froze.
 */
public record ProcessRef(long pid, long startTime) {

    public static ProcessRef of(long pid) {
        return new ProcessRef(pid, ProcFs.startTime(pid));
    }

    /** True while the same process (not a reuse of its pid) is alive. */
    public boolean alive() {
        try {
            return ProcFs.startTime(pid) == startTime;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
