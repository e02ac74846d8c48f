package dev.crucible.controllers.snapshot;

import dev.crucible.controllers.common.PodLayout;
import dev.crucible.snapshot.client.SnapshotAgentClient;
import dev.crucible.snapshot.disk.WorkspacePatch;
import dev.crucible.snapshot.engine.RestoreRequest;
import dev.crucible.snapshot.engine.RestoreResult;
import dev.crucible.snapshot.target.TargetSpec;
import dev.crucible.snapshot.tls.AgentClientTls;
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
    public String workspace(Pod pod) {
        return KUBELET_PODS + "/" + pod.getMetadata().getUid() + "/volumes/kubernetes.io~empty-dir/"
                + PodLayout.WORKSPACE_VOLUME;
    }

    /**
     * A disk-only snapshot's workspace is extracted (patches applied, marker left) into the branch
     * pod's emptyDir on its node while the pod's init container waits for it. Process trees are not:
     * putting a CRIU tree back inside a container needs the container runtime's checkpoint/restore
     * (CRI), which this agent does not drive, so that fails with the reason instead of silently
     * starting from scratch.
     */
    @Override
    public String restore(Pod pod, String container, String snapshotId, List<WorkspacePatch> patches, boolean processes) {
        if (processes) {
            throw new Unavailable("restoring processes into container " + container + " of pod " + pod.getMetadata().getName()
                    + " needs the container runtime's checkpoint/restore (CRI), which the snapshot agent does not drive yet; "
                    + "take snapshots with include.memory: false to branch workspaces in a cluster, or restore " + snapshotId
                    + " locally with crucible restore");
        }
        String node = pod.getSpec().getNodeName();
        RestoreResult r = agentOn(node).restore(new RestoreRequest(snapshotId, workspace(pod), true, false, patches));
        return "workspace on " + node + " (" + r.verifyMs() + " ms verify)";
    }

    private static boolean ready(Pod p) {
        return p.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
