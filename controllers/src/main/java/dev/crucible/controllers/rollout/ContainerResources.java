package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.PodLayout;
import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

import java.util.LinkedHashMap;
import java.util.Map;

/** The resource requests and limits of a rollout pod's containers. */
final class ContainerResources {

    private ContainerResources() {
    }

    /** Requests equal limits (Guaranteed QoS where CPU and memory are given); GPUs only as limits+requests. */
    static ResourceRequirements guaranteed(String cpu, String memory, int gpus) {
        Map<String, Quantity> amounts = new LinkedHashMap<>();
        putIfSet(amounts, "cpu", cpu);
        putIfSet(amounts, "memory", memory);
        if (gpus > 0) {
            amounts.put(PodLayout.GPU_RESOURCE, new Quantity(Integer.toString(gpus)));
        }
        if (amounts.isEmpty()) {
            return null;
        }
        return new ResourceRequirements(null, new LinkedHashMap<>(amounts), new LinkedHashMap<>(amounts));
    }

    /** The sidecar: requests from the configured requests, limits from the configured limits (a missing limit: none). */
    static ResourceRequirements verifier(OperatorSettings settings) {
        Map<String, Quantity> requests = new LinkedHashMap<>();
        Map<String, Quantity> limits = new LinkedHashMap<>();
        putIfSet(requests, "cpu", settings.verifierCpu());
        putIfSet(requests, "memory", settings.verifierMemory());
        putIfSet(limits, "cpu", settings.verifierCpuLimit());
        putIfSet(limits, "memory", settings.verifierMemoryLimit());
        return requests.isEmpty() && limits.isEmpty() ? null : new ResourceRequirements(null, limits, requests);
    }

    /**
     * The grading container: limits are the environment's CPU and memory (else the sidecar's), since grading
     * runs the environment's tests; requests are the sidecar's share, never above the limit, since grading
     * starts only once the agent has ended (requesting the environment's twice would double every pod).
     */
    static ResourceRequirements grading(OperatorSettings settings, ResourcesSpec r) {
        String cpu = r != null && r.cpu != null ? r.cpu : settings.verifierCpu();
        String memory = r != null && r.memory != null ? r.memory : settings.verifierMemory();
        ResourceRequirements limits = guaranteed(cpu, memory, 0);
        if (limits == null) return null;
        Map<String, Quantity> requests = new LinkedHashMap<>();
        limits.getLimits().forEach((k, limit) -> {
            String share = "cpu".equals(k) ? settings.verifierCpu() : settings.verifierMemory();
            Quantity q = share == null ? limit : new Quantity(share);
            requests.put(k, q.getNumericalAmount().compareTo(limit.getNumericalAmount()) < 0 ? q : limit);
        });
        return new ResourceRequirements(null, limits.getLimits(), requests);
    }

    private static void putIfSet(Map<String, Quantity> amounts, String key, String value) {
        if (value != null && !value.isBlank()) {
            amounts.put(key, new Quantity(value));
        }
    }
}
