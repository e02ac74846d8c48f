package dev.crucible.snapshot.agent;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Only the operator may drive a privileged agent: every /v1 call must carry
 * {@code Authorization: Bearer TOKEN}, TOKEN being the content of a file only the operator and
 * the agent can read (a Secret mounted into both). Comparison is constant-time over digests so
 * neither content nor length leaks through timing.
 */
public final class BearerTokenAuth implements Handler<RoutingContext> {

    private static final Logger LOG = LoggerFactory.getLogger(BearerTokenAuth.class);
    private final byte[] expectedDigest;

    public BearerTokenAuth(String token) {
        if (token == null || token.length() < 16) {
            throw new IllegalArgumentException("token must be at least 16 characters");
        }
        this.expectedDigest = digest(token);
    }

    public static BearerTokenAuth fromFile(Path file) {
        try {
            String token = Files.readString(file).strip();
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            if (perms.contains(PosixFilePermission.OTHERS_READ)) {
                LOG.warn("token file " + file + " is world-readable; restrict it to the agent (chmod 600)");
            }
            if (token.length() < 16) {
                throw new IllegalArgumentException("token file " + file + " must hold at least 16 characters");
            }
            return new BearerTokenAuth(token);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read token file " + file, e);
        }
    }

    @Override
    public void handle(RoutingContext ctx) {
        String header = ctx.request().getHeader("Authorization");
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
                && MessageDigest.isEqual(expectedDigest, digest(header.substring(7).strip()))) {
            ctx.next();
            return;
        }
        ctx.response().setStatusCode(401).putHeader("WWW-Authenticate", "Bearer realm=\"crucible-snapshot-agent\"")
                .putHeader("Content-Type", "application/json")
                .end("{\"error\":\"missing or invalid bearer token\"}");
    }

    private static byte[] digest(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
