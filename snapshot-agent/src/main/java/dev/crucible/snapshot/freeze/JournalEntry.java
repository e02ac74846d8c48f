package dev.crucible.snapshot.freeze;

import dev.crucible.snapshot.target.ProcessRef;
import java.time.Instant;
import java.util.List;

/**
 * One in-flight freeze, written to the journal before the tree is frozen and removed after it
 * is thawed. A restarted agent replays what is left: waits for a recorded CRIU that still runs
 * (killing CRIU mid-dump could leave its parasite in the tasks), thaws, fails the snapshot.
 */
public record JournalEntry(String name, String snapshotId, FreezeHandle handle, List<Long> gpuPids, long agentPid,
                           Instant frozenAt, Instant deadline, ProcessRef criu, String phase) {

    public JournalEntry withCriu(ProcessRef criuProcess, String newPhase) {
        return new JournalEntry(name, snapshotId, handle, gpuPids, agentPid, frozenAt, deadline, criuProcess, newPhase);
    }
}
