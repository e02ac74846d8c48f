package dev.crucible.controllers.capacity;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a pod asks of a node, as the scheduler counts it: the sum of its containers and sidecar
 * (restartable init) containers, or the largest regular init container with the sidecars started
 * before it, whichever is more, plus the pod overhead; a limit stands in for a missing request, as
 * the API server's defaulting does. Each resource in its base unit (cores, bytes, devices).
 */
public final class PodRequests {

    private PodRequests() {
    }

    public static Map<String, BigDecimal> of(Pod pod) {
        Map<String, BigDecimal> running = new HashMap<>();
        Map<String, BigDecimal> peak = new HashMap<>();
        Map<String, BigDecimal> sidecars = new HashMap<>();
        List<Container> inits = pod.getSpec().getInitContainers() == null ? List.of() : pod.getSpec().getInitContainers();
        for (Container c : inits) {
            if ("Always".equals(c.getRestartPolicy())) {
                add(sidecars, requests(c));
            } else {
                Map<String, BigDecimal> during = new HashMap<>(sidecars);
                add(during, requests(c));
                max(peak, during);
            }
        }
        add(running, sidecars);
        for (Container c : pod.getSpec().getContainers()) {
            add(running, requests(c));
        }
        max(running, peak);
        if (pod.getSpec().getOverhead() != null) {
            add(running, amounts(pod.getSpec().getOverhead()));
        }
        running.merge("pods", BigDecimal.ONE, BigDecimal::add);
        return running;
    }

    private static Map<String, BigDecimal> requests(Container c) {
        Map<String, BigDecimal> r = new HashMap<>();
        if (c.getResources() == null) return r;
        if (c.getResources().getLimits() != null) r.putAll(amounts(c.getResources().getLimits()));
        if (c.getResources().getRequests() != null) r.putAll(amounts(c.getResources().getRequests()));
        return r;
    }

    static Map<String, BigDecimal> amounts(Map<String, Quantity> quantities) {
        Map<String, BigDecimal> out = new HashMap<>();
        quantities.forEach((k, q) -> out.put(k, q.getNumericalAmount()));
        return out;
    }

    static void add(Map<String, BigDecimal> into, Map<String, BigDecimal> more) {
        more.forEach((k, v) -> into.merge(k, v, BigDecimal::add));
    }

    private static void max(Map<String, BigDecimal> into, Map<String, BigDecimal> other) {
        other.forEach((k, v) -> into.merge(k, v, BigDecimal::max));
    }
}
