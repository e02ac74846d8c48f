package dev.crucible.controllers.snapshot;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How the operator finds and authenticates to the snapshot agents of a cluster.
 *
 * @param namespace     where the agent DaemonSet runs (the operator's release namespace)
 * @param labelSelector selects the agent pods (e.g. {@code app.kubernetes.io/component=snapshot-agent})
 * @param port          the agents' API port
 * @param tokenFile     file holding the bearer token the agents accept (mounted from their Secret)
 */
public record SnapshotAgentSettings(String namespace, String labelSelector, int port, Path tokenFile) {

    /** Read at each use: a rotated Secret is picked up without a restart. */
    public String token() {
        try {
            return Files.readString(tokenFile).trim();
        } catch (java.io.IOException e) {
            throw new SnapshotAgents.Unavailable("cannot read the snapshot agent token from " + tokenFile + ": " + e.getMessage());
        }
    }
}
