package dev.crucible.controllers.config;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the trace store's pods are, for the egress rule that lets rollout pods reach them (a rollout pod's
 * NetworkPolicy otherwise allows only its environment's allow-list): the store's namespace, its pods' labels and
 * the port they listen on. The chart sets all three with {@code traceStore.enabled}.
 *
 * @param namespace the store's namespace
 * @param podLabels labels every store pod carries (the store Deployment's selector)
 * @param port      the store's container port (a policy matches the pod's port, after the Service's translation)
 */
public record TraceStorePeer(String namespace, Map<String, String> podLabels, int port) {

    public TraceStorePeer {
        if (namespace == null || namespace.isBlank()) {
            throw new IllegalArgumentException("crucible.trace-store.namespace: required with crucible.trace-store.pod-selector");
        }
        if (podLabels == null || podLabels.isEmpty()) {
            throw new IllegalArgumentException("crucible.trace-store.pod-selector: at least one key=value label is required");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("crucible.trace-store.pod-port: expected 1-65535, got " + port);
        }
        podLabels = Map.copyOf(podLabels);
    }

    /** {@code key=value[,key=value…]}, as {@code crucible.trace-store.pod-selector} gives it. */
    public static TraceStorePeer parse(String namespace, String selector, int port) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String part : selector == null ? new String[0] : selector.split(",")) {
            String s = part.strip();
            if (s.isEmpty()) continue;
            int eq = s.indexOf('=');
            if (eq <= 0 || eq == s.length() - 1) {
                throw new IllegalArgumentException("crucible.trace-store.pod-selector: expected key=value, got '" + s + "'");
            }
            labels.put(s.substring(0, eq).strip(), s.substring(eq + 1).strip());
        }
        return new TraceStorePeer(namespace == null ? null : namespace.strip(), labels, port);
    }
}
