package dev.crucible.snapshot.client.api;

/**
 * A restored, running tree: {@code pid} is its root in the host PID namespace (0 for a disk-only snapshot:
 * only the workspace came back; 0 too for a runtime checkpoint, whose processes come back when the
 * container runtime creates a container from {@code checkpointImage}, imported on this node).
 */
public record RestoreResult(String snapshotId, String restoreId, long pid, long restoreMs, long verifyMs,
                            String workspaceOut, String checkpointImage) {

    public RestoreResult(String snapshotId, String restoreId, long pid, long restoreMs, long verifyMs, String workspaceOut) {
        this(snapshotId, restoreId, pid, restoreMs, verifyMs, workspaceOut, null);
    }
}
