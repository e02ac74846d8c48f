package dev.crucible.snapshot.store;

public final class SnapshotNotFoundException extends RuntimeException {
    public SnapshotNotFoundException(SnapshotId id) {
        super("snapshot '" + id + "' not found in the store");
    }
}
