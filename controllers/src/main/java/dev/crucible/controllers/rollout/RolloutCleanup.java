package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.controllers.metrics.ControllerMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A deleted Rollout: its pods and the objects beside them go at once, its snapshots too when
 * {@code spec.deleteSnapshotsOnDelete}, and its metric state is forgotten.
 */
final class RolloutCleanup {
    private RolloutCleanup() {
    }

    static void run(Rollout rollout, KubernetesClient client, ControllerMetrics metrics) {
        String ns = rollout.getMetadata().getNamespace();
        String name = rollout.getMetadata().getName();
        // Owner references let the garbage collector do this too; deleting explicitly frees GPUs at once
        // and works where no garbage collector runs.
        client.pods().inNamespace(ns).withLabels(RolloutLabels.forRollout(name)).delete();
        Quietly.ignoreNotFound(() -> client.services().inNamespace(ns).withName(RolloutLabels.serviceName(name)).delete());
        Quietly.ignoreNotFound(() -> client.network().v1().networkPolicies().inNamespace(ns)
                .withName(RolloutLabels.networkPolicyName(name)).delete());
        Quietly.ignoreNotFound(() -> client.configMaps().inNamespace(ns).withName(RolloutLabels.configMapName(name)).delete());
        if (Boolean.TRUE.equals(rollout.getSpec().deleteSnapshotsOnDelete)) {
            Quietly.ignoreNotFound(() -> client.resources(RolloutSnapshot.class).inNamespace(ns).list().getItems().stream()
                    .filter(s -> s.getSpec() != null && s.getSpec().rolloutRef != null && name.equals(s.getSpec().rolloutRef.name))
                    .forEach(s -> client.resource(s).delete()));
        }
        metrics.phase(ns + "/" + name, null);
        metrics.firstSight().forget(rollout);
    }
}
