package dev.crucible.controllers.snapshot;

import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
import dev.crucible.snapshot.client.SnapshotAgentClient;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.client.api.WorkspacePatch;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * Where the snapshot agent of a node is, and how it names a pod's container. In a cluster
 * ({@link DaemonSetAgents}) that is the agent pod on the member's node and the container's cgroup;
 * the test tier maps kwok's nodes to agents running as local processes.
 */
public interface SnapshotAgents {

    /** The agent on {@code node}; throws {@link Unavailable} naming the node when there is none. */
    SnapshotAgentClient agentOn(String node);

    /** What the agent should freeze and dump for this container of the pod. */
    TargetSpec target(Pod pod, String container);

    /**
     * The container as its runtime checkpoints it, when its memory is captured that way (a cluster: a pod's
     * container is restored only by its runtime, from a checkpoint image); null: the agent's own CRIU
     * dumps the process tree (the test tier's stand-in trees).
     */
    default RuntimeCheckpoint runtime(Pod pod, String container) {
        return null;
    }

    /** The pod's workspace directory as the agent sees it (archived with the snapshot); null: memory only. */
    String workspace(Pod pod);

    /**
     * Restores one member's snapshot into {@code pod} (a branch of the snapshotted member) on the
     * pod's node: its workspace with {@code patches} applied, and with {@code processes} its process
     * tree, which then resumes (in a cluster: its checkpoint image is imported on the node, and the
     * runtime restores the container that names it). Says what it restored; throws {@link Unavailable} with the reason
     * when it cannot.
     */
    String restore(Pod pod, String container, String snapshotId, List<WorkspacePatch> patches, boolean processes);

    /** No agent can be reached for a member: the snapshot fails with this message. */
    final class Unavailable extends RuntimeException {
        public Unavailable(String message) {
            super(message);
        }
    }
}
