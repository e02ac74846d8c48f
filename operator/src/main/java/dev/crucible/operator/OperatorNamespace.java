package dev.crucible.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/** The namespace the operator runs in, for the objects it keeps beside itself. */
final class OperatorNamespace {

    private OperatorNamespace() {
    }

    /**
     * The configured value when set, else {@code POD_NAMESPACE} (the chart sets it from the downward
     * API), else the client's namespace; null when none says.
     */
    static String resolve(Optional<String> configured, KubernetesClient client) {
        String pod = System.getenv("POD_NAMESPACE");
        return configured.filter(s -> !s.isBlank())
                .orElse(pod != null && !pod.isBlank() ? pod : client.getNamespace());
    }
}
