package dev.crucible.controllers.snapshot;

import dev.crucible.controllers.common.PodLayout;
import dev.crucible.snapshot.client.SnapshotAgentClient;
import dev.crucible.snapshot.client.api.WorkspacePatch;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.client.tls.AgentClientTls;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The agents of a real cluster: the DaemonSet pod on the member's node (reached by pod IP over
 * mutual TLS), and
 * each container named by pod UID + container id, which the agent turns into its cgroup.
 */
public final class DaemonSetAgents implements SnapshotAgents {

    /** Where kubelet keeps a pod's emptyDir volumes on the node; the agents are started with this root allowed. */
    public static final String KUBELET_PODS = "/var/lib/kubelet/pods";

    private final KubernetesClient client;
    private final SnapshotAgentSettings settings;
    private final Duration callTimeout;

    public DaemonSetAgents(KubernetesClient client, SnapshotAgentSettings settings, Duration callTimeout) {
        this.client = client;
        this.settings = settings;
        this.callTimeout = callTimeout;
    }

    @Override
    public SnapshotAgentClient agentOn(String node) {
        Pod agent = client.pods().inNamespace(settings.namespace()).withLabelSelector(settings.labelSelector())
                .withField("spec.nodeName", node).list().getItems().stream()
                .filter(p -> p.getStatus() != null && p.getStatus().getPodIP() != null && ready(p))
                .findFirst()
                .orElseThrow(() -> new Unavailable("no ready snapshot agent on node " + node + " (label the node for the "
                        + "agent DaemonSet, or see the pods matching " + settings.labelSelector() + " in " + settings.namespace() + ")"));
        AgentClientTls tls = settings.clientTls();
        String ip = agent.getStatus().getPodIP();
        String host = ip.contains(":") ? "[" + ip + "]" : ip;
        // Mutual TLS to the pod IP: the agent's certificate is checked against the agent CA and its
        // shared DNS name, and the agent accepts only the operator's client certificate (plus the token).
        return new SnapshotAgentClient(URI.create((tls == null ? "http://" : "https://") + host + ":" + settings.port()),
                settings.token(), callTimeout, tls);
    }

    @Override
    public TargetSpec target(Pod pod, String container) {
        ContainerStatus cs = pod.getStatus() == null ? null : pod.getStatus().getContainerStatuses().stream()
                .filter(s -> container.equals(s.getName())).findFirst().orElse(null);
        if (cs == null || cs.getContainerID() == null || cs.getState() == null || cs.getState().getRunning() == null) {
            throw new Unavailable("container " + container + " of pod " + pod.getMetadata().getName() + " is not running");
        }
        return new TargetSpec(null, null, pod.getMetadata().getUid(), cs.getContainerID());
    }

    @Override
    public RuntimeCheckpoint runtime(Pod pod, String container) {
        return new RuntimeCheckpoint(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), container);
    }

    @Override
    public String workspace(Pod pod) {
        return KUBELET_PODS + "/" + pod.getMetadata().getUid() + "/volumes/kubernetes.io~empty-dir/"
                + PodLayout.WORKSPACE_VOLUME;
    }

    /**
     * The workspace is extracted (patches applied, marker left) into the branch pod's emptyDir on its
     * node while the pod's init container waits for it. With {@code processes}, the agent first imports
     * the member's checkpoint image into the node's containerd: the branch pod's container names it
     * ({@code RuntimeCheckpoint.imageReference}), so the runtime restores the process when the init
     * container lets it start. A snapshot without a checkpoint image is refused by the agent.
     */
    @Override
    public String restore(Pod pod, String container, String snapshotId, List<WorkspacePatch> patches, boolean processes) {
        String node = pod.getSpec().getNodeName();
        SnapshotAgentClient agent = agentOn(node);
        // Asked first: a snapshot without a checkpoint image would be restored by the agent's own CRIU,
        // on the node itself, outside any container.
        if (processes && agent.get(snapshotId).checkpointImage == null) {
            throw new Unavailable("snapshot " + snapshotId + " holds no checkpoint image for container " + container
                    + " (taken before memory snapshots went through the container runtime); restore its workspace with a "
                    + "RolloutSnapshot that has include.memory: false");
        }
        RestoreResult r = agent.restore(new RestoreRequest(snapshotId, workspace(pod), true, false, patches));
        return (processes ? "memory (" + r.checkpointImage() + ", imported in " + r.restoreMs() + " ms) and workspace" : "workspace")
                + " on " + node + " (" + r.verifyMs() + " ms verify)";
    }

    private static boolean ready(Pod p) {
        return p.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
