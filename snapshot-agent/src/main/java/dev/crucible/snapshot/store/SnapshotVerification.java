package dev.crucible.snapshot.store;

import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import java.nio.file.Path;
import java.util.Set;

/**
 * What every restore path checks before it trusts a snapshot directory: the manifest's seal
 * (HMAC with a key outside the store), every listed file's size and sha256, and that no file
 * the manifest does not list sits among them.
 */
public final class SnapshotVerification {

    /** Top-level names that are not checksummed: the manifest itself and CRIU's logs. */
    public static final Set<String> NOT_CHECKSUMMED = Set.of(ImageStore.MANIFEST, ImageStore.LOGS);

    private SnapshotVerification() {
    }

    /** Throws (SecurityException for a bad seal, IllegalStateException for a bad file) or returns the milliseconds spent. */
    public static long verify(Path dir, Manifest m, SnapshotId id, ManifestSeal seal) {
        long t0 = System.nanoTime();
        seal.verify(m, id);
        String mismatch = DirectoryDigests.firstMismatch(dir, m.files);
        if (mismatch == null) {
            mismatch = DirectoryDigests.firstUnlisted(dir, m.files, NOT_CHECKSUMMED);
        }
        if (mismatch != null) {
            throw new IllegalStateException("snapshot '" + id + "' fails verification (" + mismatch + "); not restored");
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
