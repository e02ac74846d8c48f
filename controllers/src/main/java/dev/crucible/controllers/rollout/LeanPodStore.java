package dev.crucible.controllers.rollout;

import dev.crucible.controllers.cache.LeanItemStore;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * The Rollout pods' informer cache keeps what the reconcilers read (names, labels, owners, node, gates,
 * each container's name and resources, placement, status) and leaves out the rest of what the operator
 * wrote: managed fields ({@link LeanItemStore}), the {@code rollout.yaml} annotation (only the pod's own
 * sidecar reads it, through the downward API), and each container's environment, command, mounts and
 * security context, and the volumes. At 10,000 Rollouts the cached pods are most of the operator's heap;
 * a pod is always written whole from the Rollout and its environment, never from this cache.
 */
final class LeanPodStore extends LeanItemStore<Pod> {

    @Override
    public Pod put(String key, Pod pod) {
        if (pod != null && pod.getMetadata() != null && pod.getMetadata().getAnnotations() != null) {
            pod.getMetadata().getAnnotations().remove(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION);
        }
        if (pod != null && pod.getSpec() != null) {
            pod.getSpec().setVolumes(null);
            for (var containers : java.util.Arrays.asList(pod.getSpec().getContainers(), pod.getSpec().getInitContainers())) {
                if (containers == null) {
                    continue;
                }
                for (Container c : containers) {
                    c.setEnv(null);
                    c.setCommand(null);
                    c.setArgs(null);
                    c.setVolumeMounts(null);
                    c.setSecurityContext(null);
                    c.setWorkingDir(null);
                }
            }
        }
        return super.put(key, pod);
    }
}
