package dev.crucible.controllers.status;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** What the API server said when it refused a call: its Status message, else the client's own. */
public final class ApiErrors {
    private ApiErrors() {
    }

    public static String message(KubernetesClientException e) {
        return e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
    }
}
