package dev.crucible.snapshot.engine;

/** A snapshot operation failed; the tree was thawed and the manifest marked FAILED with this reason. */
public final class SnapshotFailedException extends RuntimeException {
    public SnapshotFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
