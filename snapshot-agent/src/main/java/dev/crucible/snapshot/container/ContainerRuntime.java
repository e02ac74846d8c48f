package dev.crucible.snapshot.container;

import dev.crucible.snapshot.engine.RuntimeCheckpoint;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The node's container runtime as the snapshot agent drives it for memory snapshots of pod containers:
 * checkpoint a running container (it keeps running), and make a checkpoint image available to the
 * runtime so that a container created from it is restored.
 */
public interface ContainerRuntime {
    /** Checkpoints the container; returns the archive the runtime wrote (on this node). */
    Path checkpoint(RuntimeCheckpoint container, Duration timeout);

    /** Imports the image layout so that pods on this node can name {@code image.reference()}. */
    void importImage(CheckpointImage image, Duration timeout);

    /** Why memory snapshots of containers cannot work here, for refusals: what is missing. */
    static String unavailable() {
        return "the snapshot agent has no access to the node's kubelet and containerd "
                + "(start it with --kubelet-trust-file and --containerd-socket; the chart does when snapshots.agent.runtimeCheckpoints is true)";
    }
}
