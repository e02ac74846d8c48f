package dev.crucible.snapshot.container;

import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
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

    /**
     * Makes the image available so that pods on this node can name {@code image.reference()}: imported,
     * unless the same image (same index digest) is already there (a second branch of one snapshot).
     */
    void importImage(CheckpointImage image, Duration timeout);

    /**
     * Removes the image named {@code reference} from the node, with every other name the runtime gave
     * it (the CRI names an image it ran by its config digest too; a name left behind keeps the layers).
     * Nothing when it is not there.
     */
    void removeImage(String reference, Duration timeout);

    /** Why memory snapshots of containers cannot work here, for refusals: what is missing. */
    static String unavailable() {
        return "the snapshot agent has no access to the node's kubelet and containerd "
                + "(start it with --kubelet-trust-file and --containerd-socket; the chart does when snapshots.agent.runtimeCheckpoints is true)";
    }
}
