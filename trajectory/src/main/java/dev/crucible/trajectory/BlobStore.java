package dev.crucible.trajectory;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Content-addressed blobs of one trajectory: {@code blobs/sha256/ab/abcd…}. A blob is written once under a temporary
 * name and moved into place, so a reader never sees half of one, and content already stored is not written again
 * (checked on disk: nothing of it is kept in memory).
 */
public final class BlobStore {
    public static final String PREFIX = "sha256:";
    private final Path root;
    private final boolean[] made = new boolean[256];

    public BlobStore(Path trajectoryDir) {
        this.root = trajectoryDir.resolve("blobs");
    }

    /** The file that holds {@code ref} (a {@code sha256:} reference), or throws naming the bad reference. */
    public Path path(String ref) {
        if (ref == null || !ref.startsWith(PREFIX) || !ref.substring(PREFIX.length()).matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("not a blob reference (sha256:<64 hex digits>): " + ref);
        }
        String hex = ref.substring(PREFIX.length());
        return root.resolve("sha256").resolve(hex.substring(0, 2)).resolve(hex);
    }

    public static String ref(byte[] content) {
        return PREFIX + HexFormat.of().formatHex(sha256(content));
    }

    /** Stores {@code content}; the bytes newly written (0 when it was there already). */
    long put(String ref, byte[] content) throws IOException {
        Path target = path(ref);
        if (Files.exists(target)) return 0;
        int fan = Integer.parseInt(ref.substring(PREFIX.length(), PREFIX.length() + 2), 16);
        if (!made[fan]) { // 256 folders at most: made once, not looked up at every blob
            Files.createDirectories(target.getParent());
            made[fan] = true;
        }
        Path tmp = target.resolveSibling(".tmp-" + target.getFileName() + "-" + Thread.currentThread().getId());
        boolean moved = false;
        try {
            Files.write(tmp, content, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            moved = true;
        } catch (FileAlreadyExistsException e) {
            return 0;
        } finally {
            if (!moved) Files.deleteIfExists(tmp);
        }
        return content.length;
    }

    /** A stored blob's bytes, up to {@code max}; throws naming the reference when it is missing. */
    public byte[] read(String ref, int max) throws IOException {
        Path p = path(ref);
        if (!Files.isRegularFile(p)) throw new IOException("blob " + ref + " is not in " + root);
        try (var in = Files.newInputStream(p)) {
            return in.readNBytes(max);
        }
    }

    static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
