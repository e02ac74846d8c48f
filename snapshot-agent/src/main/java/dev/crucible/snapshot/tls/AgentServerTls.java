package dev.crucible.snapshot.tls;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The agent's TLS material: its serving certificate and key, and the CA whose client
 * certificates it accepts (mutual TLS: a caller without the operator's certificate never gets
 * past the handshake; the bearer token is still required on top).
 */
public record AgentServerTls(Path certFile, Path keyFile, Path clientCaFile) {

    public AgentServerTls {
        for (Path p : new Path[] {certFile, keyFile, clientCaFile}) {
            if (p == null || !Files.isReadable(p)) {
                throw new IllegalArgumentException("TLS file " + p + " is missing or unreadable (--tls-cert, --tls-key and --client-ca"
                        + " are all required for TLS)");
            }
        }
    }
}
