package dev.crucible.controllers.capacity;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether a whole gang fits the nodes now, could fit them some day, or never can (pure). A gang is
 * released only when every member has a node: members are placed largest first (GPUs, then CPU, then
 * memory), each on the matching node that leaves the least of its biggest request (best fit), against
 * what each node has left after the pods bound to it and after placing, the same way, the pods released
 * but not yet bound (another gang let go a moment ago). Nothing is pinned: the scheduler places the
 * members, so a view that is a moment old cannot strand one on a node that filled up meanwhile. "Never" is claimed only
 * when it is certain: a member that no matching node could hold even empty, or a gang that asks more
 * of some resource than all of its matching nodes have together; a gang that first-fit cannot place
 * today waits instead (its timeout still ends it).
 */
public final class GangFit {

    public enum Verdict { FITS, WAIT, NEVER }


    /** @param placement member pod name → the node it was placed on in the check, for FITS (the scheduler decides) */
    public record Result(Verdict verdict, String message, Map<String, String> placement) {
    }

    private GangFit() {
    }

    /**
     * @param members the gang's pods (created, still gated)
     * @param nodes   the cluster's nodes
     * @param others  pods that hold capacity: bound ones (spec.nodeName) and released ones not yet bound
     *                but pinned to a node by {@code kubernetes.io/hostname} (another gang on its way)
     */
    public static Result check(List<Pod> members, List<Node> nodes, List<Pod> others) {
        Map<String, Map<String, BigDecimal>> allocatable = new LinkedHashMap<>();
        for (Node n : nodes) {
            allocatable.put(n.getMetadata().getName(), n.getStatus() == null || n.getStatus().getAllocatable() == null
                    ? Map.of() : PodRequests.amounts(n.getStatus().getAllocatable()));
        }
        Map<String, Map<String, BigDecimal>> demand = new LinkedHashMap<>();
        Map<String, List<Node>> eligible = new HashMap<>();
        Map<String, BigDecimal> total = new TreeMap<>();
        List<Node> union = new ArrayList<>();
        for (Pod m : members) {
            String name = m.getMetadata().getName();
            String who = (members.size() > 1 ? "gang member " : "pod ") + name;
            Map<String, BigDecimal> want = PodRequests.of(m);
            demand.put(name, want);
            PodRequests.add(total, want);
            List<Node> ok = nodes.stream().filter(n -> NodeMatch.allows(n, m)).toList();
            if (ok.isEmpty()) {
                return new Result(Verdict.NEVER, who + " matches no node (its nodeSelector, node affinity and "
                        + "tolerations leave none of " + nodes.size() + ")", Map.of());
            }
            if (ok.stream().noneMatch(n -> covers(allocatable.get(n.getMetadata().getName()), want))) {
                return new Result(Verdict.NEVER, who + " asks " + describe(want) + "; no matching node has that much"
                        + " allocatable (largest: " + describe(largest(ok, allocatable, want)) + ")", Map.of());
            }
            eligible.put(name, ok);
            for (Node n : ok) if (!union.contains(n)) union.add(n);
        }
        Map<String, BigDecimal> offered = new TreeMap<>();
        for (Node n : union) PodRequests.add(offered, allocatable.get(n.getMetadata().getName()));
        for (var e : total.entrySet()) {
            BigDecimal has = offered.getOrDefault(e.getKey(), BigDecimal.ZERO);
            if (e.getValue().compareTo(has) > 0) {
                return new Result(Verdict.NEVER, "the gang's " + members.size() + " members ask " + amount(e.getKey(), e.getValue())
                        + " in all; the " + union.size() + " nodes they may use have " + amount(e.getKey(), has) + " together", Map.of());
            }
        }
        Map<String, Map<String, BigDecimal>> free = new HashMap<>();
        for (Node n : nodes) {
            if (NodeMatch.usableNow(n)) free.put(n.getMetadata().getName(), new HashMap<>(allocatable.get(n.getMetadata().getName())));
        }
        List<Pod> inFlight = new ArrayList<>();
        for (Pod p : others) {
            String node = p.getSpec().getNodeName();
            if (node == null) {
                if (p.getSpec().getSchedulingGates() == null || p.getSpec().getSchedulingGates().isEmpty()) inFlight.add(p);
            } else if (free.containsKey(node)) {
                take(free.get(node), PodRequests.of(p));
            }
        }
        // Released but not yet bound (another gang let go a moment ago, a pod the scheduler has not placed):
        // each takes its best place first, as the scheduler will soon give it one.
        for (Pod p : largestFirst(inFlight)) {
            Map<String, BigDecimal> want = PodRequests.of(p);
            Node best = bestFit(nodes.stream().filter(n -> NodeMatch.allows(n, p)).toList(), free, want);
            if (best != null) take(free.get(best.getMetadata().getName()), want);
        }
        Map<String, String> placement = new LinkedHashMap<>();
        for (Pod m : largestFirst(members)) {
            String name = m.getMetadata().getName();
            Map<String, BigDecimal> want = demand.get(name);
            Node best = bestFit(eligible.get(name), free, want);
            if (best == null) {
                return new Result(Verdict.WAIT, "waiting for capacity: gang member " + name + " (" + describe(want)
                        + ") fits no matching node now; " + placement.size() + " of " + members.size() + " members could be placed", Map.of());
            }
            placement.put(name, best.getMetadata().getName());
            take(free.get(best.getMetadata().getName()), want);
        }
        return new Result(Verdict.FITS, "all " + members.size() + " members fit: " + placement, placement);
    }

    /** GPUs first, then CPU, then memory, largest first (the order that packs best). */
    private static List<Pod> largestFirst(List<Pod> pods) {
        List<Pod> order = new ArrayList<>(pods);
        Map<Pod, Map<String, BigDecimal>> r = new java.util.IdentityHashMap<>();
        pods.forEach(p -> r.put(p, PodRequests.of(p)));
        order.sort(Comparator.comparing((Pod p) -> get(r.get(p), "nvidia.com/gpu")).thenComparing(p -> get(r.get(p), "cpu"))
                .thenComparing(p -> get(r.get(p), "memory")).reversed());
        return order;
    }

    /** The node that can hold {@code want} and is left with the least of its scarcest kind (best fit), or null. */
    private static Node bestFit(List<Node> candidates, Map<String, Map<String, BigDecimal>> free, Map<String, BigDecimal> want) {
        String key = biggest(want);
        Node best = null;
        BigDecimal bestLeft = null;
        for (Node n : candidates) {
            Map<String, BigDecimal> left = free.get(n.getMetadata().getName());
            if (left == null || !covers(left, want)) continue;
            BigDecimal after = get(left, key).subtract(get(want, key));
            if (bestLeft == null || after.compareTo(bestLeft) < 0) {
                best = n;
                bestLeft = after;
            }
        }
        return best;
    }

    private static void take(Map<String, BigDecimal> left, Map<String, BigDecimal> want) {
        want.forEach((k, v) -> left.merge(k, v.negate(), BigDecimal::add));
    }

    private static boolean covers(Map<String, BigDecimal> has, Map<String, BigDecimal> want) {
        for (var e : want.entrySet()) {
            if (e.getValue().signum() > 0 && get(has, e.getKey()).compareTo(e.getValue()) < 0) return false;
        }
        return true;
    }

    private static BigDecimal get(Map<String, BigDecimal> m, String k) {
        return m.getOrDefault(k, BigDecimal.ZERO);
    }

    /** The scarcest kind of request: GPUs when asked for, else CPU. */
    private static String biggest(Map<String, BigDecimal> want) {
        return get(want, "nvidia.com/gpu").signum() > 0 ? "nvidia.com/gpu" : "cpu";
    }

    private static Map<String, BigDecimal> largest(List<Node> nodes, Map<String, Map<String, BigDecimal>> allocatable,
                                                   Map<String, BigDecimal> want) {
        String key = biggest(want);
        return nodes.stream().map(n -> allocatable.get(n.getMetadata().getName()))
                .max(Comparator.comparing((Map<String, BigDecimal> a) -> get(a, key))).orElse(Map.of());
    }

    /** "nvidia.com/gpu=8 cpu=4.5 memory=16Gi" of the resources that matter to a reader. */
    static String describe(Map<String, BigDecimal> r) {
        StringBuilder s = new StringBuilder();
        for (String k : List.of("nvidia.com/gpu", "cpu", "memory")) {
            if (r.containsKey(k)) s.append(s.isEmpty() ? "" : " ").append(amount(k, r.get(k)));
        }
        r.keySet().stream().filter(k -> !List.of("nvidia.com/gpu", "cpu", "memory", "pods", "ephemeral-storage").contains(k)).sorted()
                .forEach(k -> s.append(s.isEmpty() ? "" : " ").append(amount(k, r.get(k))));
        return s.toString();
    }

    private static String amount(String key, BigDecimal v) {
        if (key.equals("memory") || key.equals("ephemeral-storage") || key.startsWith("hugepages-")) {
            return key + "=" + v.divide(BigDecimal.valueOf(1L << 30), 1, java.math.RoundingMode.HALF_UP).stripTrailingZeros().toPlainString() + "Gi";
        }
        return key + "=" + v.stripTrailingZeros().toPlainString();
    }
}
