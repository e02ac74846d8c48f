package dev.crucible.snapshot.client.api;

import dev.crucible.snapshot.client.api.TargetSpec;

/**
 * Prepare (or one-shot snapshot) request.
 *
 * @param preDumps        iterative pre-dumps before freezing; null = engine default
 * @param freezeTimeoutMs the watchdog thaws and fails the snapshot if still frozen after this
 * @param workspace       directory to archive while frozen, inside an allowed workspace root; may be null
 * @param diskOnly        freeze the tree and archive only the workspace, no CRIU (containers whose
 *                        processes cannot be dumped here; a restore gives the workspace back)
 * @param runtime         the container to checkpoint through its runtime (kubelet API) instead of the
 *                        agent's CRIU; null for a process tree the agent dumps itself
 */
public record SnapshotRequest(String snapshotId, String group, TargetSpec target, Integer preDumps,
                              boolean tcpEstablished, boolean shellJob, String workspace, Long freezeTimeoutMs,
                              Long gpuLockTimeoutMs, Boolean diskOnly, RuntimeCheckpoint runtime) {

    public SnapshotRequest(String snapshotId, String group, TargetSpec target, Integer preDumps, boolean tcpEstablished,
                           boolean shellJob, String workspace, Long freezeTimeoutMs, Long gpuLockTimeoutMs, Boolean diskOnly) {
        this(snapshotId, group, target, preDumps, tcpEstablished, shellJob, workspace, freezeTimeoutMs, gpuLockTimeoutMs, diskOnly, null);
    }

    public SnapshotRequest(String snapshotId, String group, TargetSpec target, Integer preDumps, boolean tcpEstablished,
                           boolean shellJob, String workspace, Long freezeTimeoutMs, Long gpuLockTimeoutMs) {
        this(snapshotId, group, target, preDumps, tcpEstablished, shellJob, workspace, freezeTimeoutMs, gpuLockTimeoutMs, null, null);
    }

    public boolean skipsMemory() {
        return Boolean.TRUE.equals(diskOnly);
    }

    public static SnapshotRequest of(String id, TargetSpec target) {
        return new SnapshotRequest(id, null, target, null, false, false, null, null, null);
    }

    public SnapshotRequest withWorkspace(String dir) {
        return new SnapshotRequest(snapshotId, group, target, preDumps, tcpEstablished, shellJob, dir, freezeTimeoutMs,
                gpuLockTimeoutMs, diskOnly, runtime);
    }

    public SnapshotRequest withPreDumps(int n) {
        return new SnapshotRequest(snapshotId, group, target, n, tcpEstablished, shellJob, workspace, freezeTimeoutMs,
                gpuLockTimeoutMs, diskOnly, runtime);
    }

    public SnapshotRequest withFreezeTimeoutMs(long ms) {
        return new SnapshotRequest(snapshotId, group, target, preDumps, tcpEstablished, shellJob, workspace, ms,
                gpuLockTimeoutMs, diskOnly, runtime);
    }

    public SnapshotRequest withRuntime(RuntimeCheckpoint r) {
        return new SnapshotRequest(snapshotId, group, target, preDumps, tcpEstablished, shellJob, workspace, freezeTimeoutMs,
                gpuLockTimeoutMs, diskOnly, r);
    }
}
