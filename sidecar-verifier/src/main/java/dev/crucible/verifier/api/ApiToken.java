package dev.crucible.verifier.api;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The bearer token of one environment API. Compared in constant time: both sides are hashed first,
 * so neither a differing prefix nor a differing length shows in the time a refusal takes.
 */
public final class ApiToken {
    /** Shorter tokens are refused: they could be guessed over a pod network at line rate. */
    public static final int MIN_LENGTH = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String value;
    private final byte[] digest;

    private ApiToken(String value) {
        this.value = value;
        this.digest = sha256(value);
    }

    /** 256 random bits, URL-safe Base64 (43 characters). */
    public static ApiToken generate() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return new ApiToken(Base64.getUrlEncoder().withoutPadding().encodeToString(b));
    }

    public static ApiToken of(String value, String field) {
        String v = value == null ? "" : value.strip();
        if (v.length() < MIN_LENGTH) throw new IllegalArgumentException(field + ": an API token of at least " + MIN_LENGTH + " characters is required");
        if (!v.chars().allMatch(c -> c > 0x20 && c < 0x7f)) throw new IllegalArgumentException(field + ": the API token must be printable ASCII without spaces");
        return new ApiToken(v);
    }

    /** Reads a token file (a mounted Secret key, a file written by {@link #writeTo}); the error names the file. */
    public static ApiToken read(Path file) {
        try {
            return of(Files.readString(file, StandardCharsets.US_ASCII), file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read the API token: " + e.getMessage());
        }
    }

    public String value() {
        return value;
    }

    /** True for exactly {@code Bearer <token>}. */
    public boolean accepts(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) return false;
        return MessageDigest.isEqual(digest, sha256(authorization.substring(7).strip()));
    }

    /** Creates {@code file} with mode 0600 from the start (never a moment readable by others), never through a link. */
    public Path writeTo(Path file) throws IOException {
        // written whole under another name, then renamed: a client that polls for the file never reads it half-written
        // (the blind host round saw a client at load 55 read it before its content and get 401 on every call)
        Path tmp = file.resolveSibling("." + file.getFileName() + "." + Long.toHexString(RANDOM.nextLong()) + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(Files.createFile(tmp,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                out.write((value + "\n").getBytes(StandardCharsets.US_ASCII));
            }
            Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return file;
    }

    @Override
    public String toString() {
        return "ApiToken[***]"; // never in a log line by accident
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
