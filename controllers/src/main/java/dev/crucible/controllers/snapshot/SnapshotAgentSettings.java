package dev.crucible.controllers.snapshot;

import dev.crucible.snapshot.client.tls.AgentClientTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * How the operator finds and authenticates to the snapshot agents of a cluster.
 *
 * @param namespace     where the agent DaemonSet runs (the operator's release namespace)
 * @param labelSelector selects the agent pods (e.g. {@code app.kubernetes.io/component=snapshot-agent})
 * @param port          the agents' API port
 * @param tokenFile     file holding the bearer token the agents accept (mounted from their Secret)
 * @param tls           the operator's side of the agents' mutual TLS (CA, client certificate), asked
 *                      at each use so re-issued certificates are picked up; null only where the agents
 *                      listen on loopback (they refuse plaintext anywhere else)
 */
public record SnapshotAgentSettings(String namespace, String labelSelector, int port, Path tokenFile,
                                    Supplier<AgentClientTls> tls) {

    /** Plaintext: only for agents on this machine's loopback. */
    public SnapshotAgentSettings(String namespace, String labelSelector, int port, Path tokenFile) {
        this(namespace, labelSelector, port, tokenFile, null);
    }

    /** Read at each use: a rotated Secret is picked up without a restart. */
    public String token() {
        try {
            return Files.readString(tokenFile).trim();
        } catch (java.io.IOException e) {
            throw new SnapshotAgents.Unavailable("cannot read the snapshot agent token from " + tokenFile + ": " + e.getMessage());
        }
    }

    /** The TLS settings now, or null for plaintext; a failure to get them makes the agents unavailable, with the reason. */
    public AgentClientTls clientTls() {
        if (tls == null) {
            return null;
        }
        try {
            return tls.get();
        } catch (RuntimeException e) {
            throw new SnapshotAgents.Unavailable("snapshot agent TLS certificates are not ready: " + e.getMessage());
        }
    }
}
