package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.PhaseName;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A member lost with its node (issue 41): told apart from a pod deleted by hand or evicted, so the Rollout ends
 * {@code Failed/NodeLost}, an infrastructure failure that the solve rate leaves out, not an unsolved attempt.
 * Kubernetes says it two ways: the pod garbage collector marks a pod whose node is gone (or out of service)
 * with condition {@code DisruptionTarget}, reason {@code DeletionByPodGC}, sets it Failed and force-deletes it
 * at once, so the operator sees either that mark or only the pod's deletion; then the node the member was on
 * (status.members) is looked up, and a 404 says it is gone.
 */
final class NodeLoss {

    /** The pod condition the control plane adds before it deletes a pod (Kubernetes' DisruptionTarget). */
    static final String DISRUPTION_TARGET = "DisruptionTarget";
    /** PodGC's reason on that condition: the pod's node no longer exists, or is tainted out-of-service. */
    static final String DELETION_BY_POD_GC = "DeletionByPodGC";

    private NodeLoss() {
    }

    /** Why one of the pods was lost with its node, as the pod garbage collector marked it; null when none was. */
    static String marked(Collection<Pod> pods) {
        for (Pod p : pods) {
            List<PodCondition> conditions = p.getStatus() == null ? null : p.getStatus().getConditions();
            for (PodCondition c : conditions == null ? List.<PodCondition>of() : conditions) {
                if (DISRUPTION_TARGET.equals(c.getType()) && "True".equals(c.getStatus()) && DELETION_BY_POD_GC.equals(c.getReason())) {
                    return "node " + p.getSpec().getNodeName() + " was lost while the rollout ran: pod " + p.getMetadata().getName()
                            + " was removed by the pod garbage collector (" + c.getMessage() + ")";
                }
            }
        }
        return null;
    }

    /** Why a member gone from {@code pods} was lost with its node (one of {@code lostNodes}); null when none was. */
    static String missing(String rollout, List<MemberPlan> missing, RolloutStatus status, Set<String> lostNodes) {
        for (MemberPlan m : missing) {
            String node = lastNode(status, m.role(), m.index());
            if (node != null && lostNodes.contains(node)) {
                return "node " + node + " was lost while the rollout ran: pod " + m.podName(rollout) + " went with it";
            }
        }
        return null;
    }

    /**
     * The nodes to look up before deciding: those that members of a Running or Verifying rollout were on and
     * whose pods are gone (rare, so one read each, not a node informer in every operator).
     */
    static Set<String> nodesOfMissing(Rollout rollout, Map<String, Pod> pods) {
        RolloutStatus s = rollout.getStatus();
        Set<String> nodes = new TreeSet<>();
        if (s == null || s.members == null || s.phase != PhaseName.Running && s.phase != PhaseName.Verifying) {
            return nodes;
        }
        for (RolloutMember m : s.members) {
            if (m.node != null && m.role != null && m.index != null
                    && !pods.containsKey(dev.crucible.controllers.common.RolloutLabels.podName(rollout.getMetadata().getName(), m.role, m.index))) {
                nodes.add(m.node);
            }
        }
        return nodes;
    }

    /** Which of {@code nodes} no longer exist; without the right to read nodes (403) none is called lost. */
    static Set<String> lost(KubernetesClient client, Set<String> nodes) {
        Set<String> lost = new TreeSet<>();
        for (String n : nodes) {
            try {
                if (client.nodes().withName(n).get() == null) {
                    lost.add(n);
                }
            } catch (KubernetesClientException e) {
                if (e.getCode() != 403) {
                    throw e; // the reconcile is retried
                }
            }
        }
        return lost;
    }

    private static String lastNode(RolloutStatus status, String role, int index) {
        if (status == null || status.members == null) {
            return null;
        }
        for (RolloutMember m : status.members) {
            if (role.equals(m.role) && m.index != null && m.index == index) {
                return m.node;
            }
        }
        return null;
    }
}
