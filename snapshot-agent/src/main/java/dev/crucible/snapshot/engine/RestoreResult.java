package dev.crucible.snapshot.engine;

/** A restored, running tree: {@code pid} is its root in the host PID namespace. */
public record RestoreResult(String snapshotId, String restoreId, long pid, long restoreMs, long verifyMs,
                            String workspaceOut) {
}
