package dev.crucible.operator.webhook;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Where the operator keeps the certificate it serves: {@code tls.crt}, {@code tls.key} and {@code ca.crt}
 * in one directory (an emptyDir in the pod; the root filesystem is read-only). Files are replaced
 * atomically, so the HTTPS server never reads a half-written key.
 */
public record CertificateFiles(Path directory) {

    public Path certificate() {
        return directory.resolve(WebhookCertificate.TLS_CRT);
    }

    public Path key() {
        return directory.resolve(WebhookCertificate.TLS_KEY);
    }

    public Path caBundle() {
        return directory.resolve(WebhookCertificate.CA_CRT);
    }

    /** Writes what differs from the files on disk; true when anything changed. */
    public boolean write(WebhookCertificate cert) {
        try {
            Files.createDirectories(directory);
            boolean changed = replace(key(), cert.key(), true);
            changed |= replace(certificate(), cert.certificate(), false);
            changed |= replace(caBundle(), cert.caBundle(), false);
            return changed;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the webhook certificate to " + directory + ": " + e.getMessage(), e);
        }
    }

    private static boolean replace(Path target, String content, boolean secret) throws IOException {
        if (Files.isRegularFile(target) && Files.readString(target, StandardCharsets.UTF_8).equals(content)) {
            return false;
        }
        Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
            if (secret) {
                try {
                    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException ignored) {
                    // not a POSIX file system; the directory's own permissions are all there is
                }
            }
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        return true;
    }
}
