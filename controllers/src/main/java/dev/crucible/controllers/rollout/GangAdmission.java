package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.capacity.GangFit;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Collection;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node view a gang release is decided on: every node, and the pods holding capacity on them,
 * read from the API server at the moment of the decision (a gang waits rarely and briefly; a
 * cluster-wide pod informer would cost every operator memory and CPU for it). Releases are serialized by
 * {@link #LOCK}, so two gangs that each fit alone are not both let go into room for one: a released
 * member not yet bound takes its place in the check before the next gang does.
 */
final class GangAdmission {

    static final ReentrantLock LOCK = new ReentrantLock();
    private static final Logger LOG = LoggerFactory.getLogger(GangAdmission.class);

    private GangAdmission() {
    }

    /** Whether every member exists and at least one still holds the gang's scheduling gate. */
    static boolean awaitingRelease(Collection<Pod> members, int planned) {
        return planned > 1 && members.size() >= planned && members.stream()
                .anyMatch(p -> p.getSpec().getSchedulingGates() != null && !p.getSpec().getSchedulingGates().isEmpty());
    }

    /**
     * Pods on nodes, everywhere, from the API server's watch cache (resourceVersion 0: no etcd read, cheap
     * in a burst), and Crucible's own pods not yet bound, read from etcd: a member the previous decision
     * released counts even before any informer has seen the release. Namespaced RBAC
     * (watchNamespaces) grants no cluster-wide list: there only the operator's own pods are known.
     */
    private static List<Pod> holdingCapacity(KubernetesClient client) {
        Map<String, Pod> byKey = new LinkedHashMap<>();
        ListOptions fromCache = new ListOptionsBuilder().withResourceVersion("0").build();
        for (Pod p : client.pods().inAnyNamespace().withoutField("spec.nodeName", "").list(fromCache).getItems()) {
            byKey.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
        }
        for (Pod p : client.pods().inAnyNamespace().withLabel(RolloutLabels.MANAGED_BY, RolloutLabels.MANAGED_BY_VALUE)
                .withField("spec.nodeName", "").list().getItems()) {
            byKey.putIfAbsent(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
        }
        return List.copyOf(byKey.values());
    }

    /** A single unbound pod the scheduler has called unschedulable (only then is the node view read for it). */
    static boolean unschedulable(Collection<Pod> pods) {
        return pods.size() == 1 && pods.stream().allMatch(p -> p.getSpec().getNodeName() == null && p.getStatus() != null
                && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream().anyMatch(c ->
                "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason())));
    }

    /**
     * @param clusterWide whether the operator watches every namespace (and so may list every pod)
     * @param ownPods the operator's own pods (its informer), used when it watches only some namespaces
     * @return the verdict, or null when nodes cannot be read (the gang is then released as it exists)
     */
    static GangFit.Result check(KubernetesClient client, List<Pod> members, boolean clusterWide, Supplier<List<Pod>> ownPods) {
        List<Node> nodes;
        try {
            nodes = client.nodes().list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 403) throw e;
            LOG.warn("cannot list nodes ({}): gangs are released without a capacity check", e.getMessage());
            return null;
        }
        List<Pod> others = clusterWide ? holdingCapacity(client) : ownPods.get();
        List<String> names = members.stream().map(p -> p.getMetadata().getName()).toList();
        List<Pod> holding = others.stream().filter(p -> !(names.contains(p.getMetadata().getName())
                && p.getMetadata().getNamespace().equals(members.get(0).getMetadata().getNamespace())))
                .filter(p -> p.getStatus() == null || !("Succeeded".equals(p.getStatus().getPhase()) || "Failed".equals(p.getStatus().getPhase())))
                .toList();
        return GangFit.check(members, nodes, holding);
    }
}
