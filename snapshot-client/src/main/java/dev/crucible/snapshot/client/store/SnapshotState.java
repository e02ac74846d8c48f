package dev.crucible.snapshot.client.store;

/** Life cycle of one snapshot as recorded in its manifest. */
public enum SnapshotState {
    /** Directory created; pre-dumps (and GPU suspension) may be running; the target runs. */
    PREPARING,
    /** The target is frozen; the final dump has not finished yet. */
    FROZEN,
    /** Final images and workspace archive written; the target is still frozen until commit. */
    DUMPED,
    /** Committed: the target was thawed (or stopped) and every file has a checksum. */
    COMPLETE,
    /** Aborted or interrupted; the reason says why. Images (if any) must not be restored. */
    FAILED;

    public boolean terminal() {
        return this == COMPLETE || this == FAILED;
    }
}
