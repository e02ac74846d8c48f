package dev.crucible.snapshot.store;

import dev.crucible.snapshot.client.store.SnapshotId;

public final class SnapshotNotFoundException extends RuntimeException {
    public SnapshotNotFoundException(SnapshotId id) {
        super("snapshot '" + id + "' not found in the store");
    }
}
