package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.freeze.FreezeHandle;
import dev.crucible.snapshot.freeze.JournalEntry;
import dev.crucible.snapshot.gpu.GpuSuspension;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.target.ResolvedTarget;
import java.nio.file.Path;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One in-flight snapshot (or plain pause). {@link #phaseLock} serialises the caller's phases;
 * the release fields are guarded by {@code this} and never held across a slow call, so the
 * watchdog can always thaw even while a phase hangs.
 */
final class Session {
    final String id;
    final boolean pauseOnly;
    final ReentrantLock phaseLock = new ReentrantLock();

    Manifest manifest;
    ResolvedTarget target;
    Path cgroup;
    /** The adopted freezer cgroup has been released (guarded by the session). */
    boolean cgroupReleased;
    Path workspace;
    SnapshotRequest request;
    GpuSuspension gpu;
    String lastImages;

    // read by the watchdog thread as well as the request thread
    volatile FreezeHandle handle;
    volatile JournalEntry journal;
    volatile long frozenAtNanos;
    /** How long the agent's freeze was lifted for the container runtime's checkpoint (0: never). */
    volatile long liftedNanos;
    volatile ScheduledFuture<?> watchdog;

    /** Set once: the session was aborted (by a caller, an error, or the watchdog). */
    boolean aborted;
    String abortReason;
    /** True while a CRIU run holds the tree; a thaw then must be repeated when CRIU ends. */
    boolean criuRunning;

    Session(String id, boolean pauseOnly) {
        this.id = id;
        this.pauseOnly = pauseOnly;
    }

    /** Refuses a phase when the session was aborted or is not in the state {@code phase} follows. */
    void requireState(SnapshotState want, String phase) {
        synchronized (this) {
            if (aborted) {
                throw new SessionConflictException("snapshot '" + id + "' was aborted: " + abortReason);
            }
        }
        if (manifest.state != want) {
            throw new SessionConflictException(phase + " needs snapshot '" + id + "' to be " + want + ", it is " + manifest.state);
        }
    }
}
