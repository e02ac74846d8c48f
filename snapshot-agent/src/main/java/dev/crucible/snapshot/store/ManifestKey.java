package dev.crucible.snapshot.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Set;

/**
 * The secret that seals image manifests ({@link ManifestSeal}). It never lives in the image store:
 * whoever can rewrite images (an agent that reaches the store) must not be able to re-seal them.
 * Cluster: a Secret mounted into the agent only. Local: {@code CONFIG/crucible/snapshot-hmac.key}
 * (0600, created on first use), CONFIG being $XDG_CONFIG_HOME or ~/.config.
 */
public final class ManifestKey {

    public static final String LOCAL_FILE = "snapshot-hmac.key";
    private static final int BYTES = 32;

    private final byte[] key;
    private final Path source;

    private ManifestKey(byte[] key, Path source) {
        if (key.length < 16) {
            throw new IllegalArgumentException("manifest key " + source + " must hold at least 16 bytes, has " + key.length);
        }
        this.key = key.clone();
        this.source = source;
    }

    public static ManifestKey of(byte[] key) {
        return new ManifestKey(key, null);
    }

    /** A key file that must exist (the cluster's Secret). Surrounding whitespace of a text key is ignored. */
    public static ManifestKey fromFile(Path file) {
        try {
            byte[] raw = Files.readAllBytes(file);
            String text = new String(raw, java.nio.charset.StandardCharsets.ISO_8859_1).strip();
            return new ManifestKey(text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read manifest key file " + file, e);
        }
    }

    /** The local user's key, created (0600, random) on first use. */
    public static ManifestKey localDefault() {
        return fromFileCreating(defaultLocalFile());
    }

    public static Path defaultLocalFile() {
        String xdg = System.getenv("XDG_CONFIG_HOME");
        Path config = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
        return config.resolve("crucible").resolve(LOCAL_FILE);
    }

    /** Reads {@code file}, or creates it with a fresh random key readable by its owner only. */
    public static ManifestKey fromFileCreating(Path file) {
        if (!Files.exists(file)) {
            try {
                Files.createDirectories(file.getParent(),
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                byte[] k = new byte[BYTES];
                new SecureRandom().nextBytes(k);
                String hex = java.util.HexFormat.of().formatHex(k);
                Path tmp = Files.createTempFile(file.getParent(), LOCAL_FILE, ".tmp",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.writeString(tmp, hex + "\n");
                try {
                    Files.createLink(file, tmp); // fails if another process created it meanwhile: theirs wins
                } catch (FileAlreadyExistsException ignored) {
                    // keep the existing key
                } finally {
                    Files.deleteIfExists(tmp);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create manifest key file " + file, e);
            }
        }
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            if (perms.contains(PosixFilePermission.OTHERS_READ) || perms.contains(PosixFilePermission.GROUP_READ)) {
                throw new IllegalStateException("manifest key file " + file + " is readable by others; chmod 600 it");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fromFile(file);
    }

    /** Refuses a key that lies inside the store it protects. */
    public void requireOutside(Path storeRoot) {
        if (source == null) {
            return; // held in memory only
        }
        try {
            Path k = source.toAbsolutePath().normalize();
            Path real = Files.exists(k) ? k.toRealPath() : k;
            Path store = storeRoot.toAbsolutePath().normalize();
            Path storeReal = Files.exists(store) ? store.toRealPath() : store;
            if (k.startsWith(store) || real.startsWith(storeReal)) {
                throw new IllegalArgumentException("manifest key " + source + " lies inside the image store " + storeRoot
                        + "; keep it outside (whoever can write the store could re-seal images)");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    byte[] bytes() {
        return key.clone();
    }

    public Path source() {
        return source;
    }

    @Override
    public String toString() {
        return "ManifestKey(" + (source == null ? "in memory" : source) + ")";
    }
}
