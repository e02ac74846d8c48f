package dev.crucible.snapshot.engine;

/** A restored, running tree: {@code pid} is its root in the host PID namespace (0 for a disk-only snapshot: only the workspace came back). */
public record RestoreResult(String snapshotId, String restoreId, long pid, long restoreMs, long verifyMs,
                            String workspaceOut) {
}
