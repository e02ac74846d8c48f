package dev.crucible.controllers.rollout;

import dev.crucible.controllers.cache.LeanItemStore;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * The Rollout pods' informer cache: without managed fields ({@link LeanItemStore}) and without the
 * {@code rollout.yaml} annotation, which only the pod's own sidecar reads (through the downward API); at
 * 10,000 Rollouts the cached pods are most of the operator's heap.
 */
final class LeanPodStore extends LeanItemStore<Pod> {

    @Override
    public Pod put(String key, Pod pod) {
        if (pod != null && pod.getMetadata() != null && pod.getMetadata().getAnnotations() != null) {
            pod.getMetadata().getAnnotations().remove(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION);
        }
        return super.put(key, pod);
    }
}
