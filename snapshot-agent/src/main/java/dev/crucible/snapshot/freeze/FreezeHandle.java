package dev.crucible.snapshot.freeze;

import dev.crucible.snapshot.target.ProcessRef;
import java.util.List;

/**
 * What was frozen and how, serialisable into the journal so a restarted agent can thaw it.
 *
 * @param kind        {@link #CGROUP_V2} or {@link #SIGSTOP}
 * @param cgroupPath  the frozen cgroup (cgroup-v2 only)
 * @param processes   the tree at freeze time, with start times (sigstop thaws exactly these)
 */
public record FreezeHandle(String kind, String cgroupPath, List<ProcessRef> processes) {
    public static final String CGROUP_V2 = "cgroup-v2";
    public static final String SIGSTOP = "sigstop";

    public boolean cgroup() {
        return CGROUP_V2.equals(kind);
    }
}
