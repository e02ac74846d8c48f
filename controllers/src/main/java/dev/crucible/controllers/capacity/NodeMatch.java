package dev.crucible.controllers.capacity;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether a pod may ever go to a node, by the node's labels and taints only (the scheduler's
 * NodeAffinity, NodeName and TaintToleration filters); capacity is {@link GangFit}'s business.
 */
public final class NodeMatch {

    private NodeMatch() {
    }

    public static boolean allows(Node node, Pod pod) {
        if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().equals(node.getMetadata().getName())) return false;
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        if (pod.getSpec().getNodeSelector() != null) {
            for (var e : pod.getSpec().getNodeSelector().entrySet()) {
                if (!e.getValue().equals(labels.get(e.getKey()))) return false;
            }
        }
        var affinity = pod.getSpec().getAffinity();
        if (affinity != null && affinity.getNodeAffinity() != null
                && affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
            List<NodeSelectorTerm> terms = affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
            if (terms != null && !terms.isEmpty() && terms.stream().noneMatch(t -> matches(t, labels, node.getMetadata().getName()))) {
                return false;
            }
        }
        List<Toleration> tolerations = pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
        if (node.getSpec() != null && node.getSpec().getTaints() != null) {
            for (Taint t : node.getSpec().getTaints()) {
                if ("PreferNoSchedule".equals(t.getEffect())) continue;
                if (tolerations.stream().noneMatch(tol -> tolerates(tol, t))) return false;
            }
        }
        return true;
    }

    /** Ready and schedulable now (a node that is not may still be one later). */
    public static boolean usableNow(Node node) {
        if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) return false;
        if (node.getStatus() == null || node.getStatus().getConditions() == null) return true;
        return node.getStatus().getConditions().stream()
                .noneMatch(c -> "Ready".equals(c.getType()) && !"True".equals(c.getStatus()));
    }

    /** A term's requirements all hold (an empty term matches nothing, as in the API). */
    private static boolean matches(NodeSelectorTerm term, Map<String, String> labels, String nodeName) {
        boolean any = false;
        for (NodeSelectorRequirement r : term.getMatchExpressions() == null ? List.<NodeSelectorRequirement>of() : term.getMatchExpressions()) {
            any = true;
            if (!holds(r, labels.get(r.getKey()), labels.containsKey(r.getKey()))) return false;
        }
        for (NodeSelectorRequirement r : term.getMatchFields() == null ? List.<NodeSelectorRequirement>of() : term.getMatchFields()) {
            any = true;
            if (!"metadata.name".equals(r.getKey()) || !holds(r, nodeName, true)) return false;
        }
        return any;
    }

    private static boolean holds(NodeSelectorRequirement r, String value, boolean present) {
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        return switch (r.getOperator()) {
            case "In" -> present && values.contains(value);
            case "NotIn" -> !present || !values.contains(value);
            case "Exists" -> present;
            case "DoesNotExist" -> !present;
            case "Gt", "Lt" -> present && values.size() == 1 && compare(value, values.get(0), r.getOperator());
            default -> false;
        };
    }

    private static boolean compare(String value, String bound, String op) {
        try {
            long v = Long.parseLong(value), b = Long.parseLong(bound);
            return "Gt".equals(op) ? v > b : v < b;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean tolerates(Toleration tol, Taint taint) {
        if (tol.getEffect() != null && !tol.getEffect().isEmpty() && !tol.getEffect().equals(taint.getEffect())) return false;
        if (tol.getKey() == null || tol.getKey().isEmpty()) return "Exists".equals(tol.getOperator());
        if (!tol.getKey().equals(taint.getKey())) return false;
        return "Exists".equals(tol.getOperator()) || Objects.equals(Objects.toString(tol.getValue(), ""), Objects.toString(taint.getValue(), ""));
    }
}
