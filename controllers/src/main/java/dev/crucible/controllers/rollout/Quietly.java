package dev.crucible.controllers.rollout;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** Deletes of what may already be gone: 404 is success, anything else is thrown. */
final class Quietly {
    private Quietly() {
    }

    static void ignoreNotFound(Runnable r) {
        try {
            r.run();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }
}
