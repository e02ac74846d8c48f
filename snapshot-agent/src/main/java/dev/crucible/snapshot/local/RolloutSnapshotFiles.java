package dev.crucible.snapshot.local;

/** Names of the files a local rollout snapshot holds beside the engine's images and workspace archive. */
public final class RolloutSnapshotFiles {
    /**
     * What the CLI needs to continue the rollout after a restore (manifests, rollout name, original
     * attempt folder, elapsed time). Written before commit, so it is checksummed with the images:
     * a tampered metadata file fails verification like a tampered image.
     */
    public static final String METADATA = "rollout.json";

    private RolloutSnapshotFiles() {}
}
