package dev.crucible.snapshot.client.api;

/**
 * A container whose memory the container runtime checkpoints (the kubelet's checkpoint API, containerd
 * and runc underneath, CRIU at the bottom) instead of the agent's own CRIU: the only form a pod's
 * container can be restored from, since its restore goes through the runtime too (a checkpoint image).
 */
public record RuntimeCheckpoint(String namespace, String pod, String container) {
    public void validate() {
        if (blank(namespace) || blank(pod) || blank(container)) {
            throw new IllegalArgumentException("runtime: namespace, pod and container are all required");
        }
    }

    /**
     * The image reference a snapshot's checkpoint is imported under on a node, and that a branch pod's
     * container names: one definition for the agent (which imports it) and the operator (which builds
     * the pod). Snapshot ids are DNS-label-like, which a repository path accepts.
     */
    public static String imageReference(String snapshotId) {
        return "crucible.dev/checkpoint/" + snapshotId.toLowerCase(java.util.Locale.ROOT) + ":latest";
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
