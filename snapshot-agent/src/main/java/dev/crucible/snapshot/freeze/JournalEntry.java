package dev.crucible.snapshot.freeze;

import dev.crucible.snapshot.target.ProcessRef;
import java.time.Instant;
import java.util.List;

/**
 * One in-flight freeze, written to the journal before the tree is frozen and removed after it
 * is thawed. A restarted agent replays what is left: waits for a recorded CRIU that still runs
 * (killing CRIU mid-dump could leave its parasite in the tasks), thaws, fails the snapshot.
 * It is also the freeze's lease: {@link FreezeLeaseWatchdog}, a separate process, thaws the tree
 * once its owner ({@code agentPid} + {@code agentStartTime}; 0 in entries written before the
 * field existed) is gone or {@code deadline} has passed with the entry still there.
 */
public record JournalEntry(String name, String snapshotId, FreezeHandle handle, List<Long> gpuPids, long agentPid,
                           long agentStartTime, Instant frozenAt, Instant deadline, ProcessRef criu, String phase) {

    public JournalEntry withCriu(ProcessRef criuProcess, String newPhase) {
        return new JournalEntry(name, snapshotId, handle, gpuPids, agentPid, agentStartTime, frozenAt, deadline, criuProcess, newPhase);
    }

    /** The current process as an entry's owner. */
    public static ProcessRef self() {
        return ProcessRef.of(ProcessHandle.current().pid());
    }

    /** True while the process that wrote this entry is alive (pid only for entries that lack its start time). */
    public boolean ownerAlive() {
        if (agentStartTime > 0) {
            return new ProcessRef(agentPid, agentStartTime).alive();
        }
        return ProcessHandle.of(agentPid).map(ProcessHandle::isAlive).orElse(false);
    }
}
