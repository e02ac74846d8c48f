package dev.crucible.snapshot.client.store;

/** Size and sha256 of one regular file, or the target of a symlink (CRIU's "parent" links). */
public record FileDigest(long size, String sha256, String linkTarget) {

    public static FileDigest file(long size, String sha256) {
        return new FileDigest(size, sha256, null);
    }

    public static FileDigest link(String target) {
        return new FileDigest(0, null, target);
    }
}
