package dev.crucible.controllers.rollout;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Names of the objects Rollouts share end in a hash of what they hold, so an existing name holds exactly that. */
final class SideObjectNames {

    private SideObjectNames() {
    }

    /** The first 10 hex digits of the SHA-256 of {@code content}: a label value and a name suffix. */
    static String hash(String content) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(content.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
