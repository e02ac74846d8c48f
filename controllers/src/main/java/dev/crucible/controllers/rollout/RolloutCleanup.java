package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.controllers.metrics.ControllerMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import dev.crucible.controllers.status.EventRecorder;
import dev.crucible.controllers.status.PermissionReporter;

/**
 * A deleted Rollout: its pods and a gang's Service and NetworkPolicy go at once, its snapshots too when
 * {@code spec.deleteSnapshotsOnDelete}, and its metric state is forgotten. Runs on the delete event, with
 * no finalizer: owner references let the garbage collector do the same when the operator was down.
 */
final class RolloutCleanup {
    private RolloutCleanup() {
    }

    /** The finalizer earlier versions of the operator added (JOSDK's default name); released, never added. */
    static final String LEGACY_FINALIZER = "rollouts.crucible.dev/finalizer";

    /**
     * On the delete event: once, since the object is gone (a failure is a Warning Event about it and the
     * garbage collector removes the pods); its metric state is forgotten either way.
     */
    static void onDeleted(Rollout rollout, KubernetesClient client, ControllerMetrics metrics, EventRecorder events) {
        PermissionReporter.afterDeletion(events, rollout, "cleanup", () -> deleteBeside(rollout, client));
        forget(rollout, metrics);
    }

    /** A Rollout an earlier version gave a finalizer: clean up, then let it go (a failure is retried). */
    static void releaseLegacyFinalizer(Rollout rollout, KubernetesClient client, ControllerMetrics metrics) {
        if (!rollout.hasFinalizer(LEGACY_FINALIZER)) {
            return;
        }
        deleteBeside(rollout, client);
        forget(rollout, metrics);
        Quietly.ignoreNotFound(() -> client.resource(rollout).edit(r -> {
            r.getMetadata().getFinalizers().remove(LEGACY_FINALIZER);
            return r;
        }));
    }

    /** Its pods, a gang's Service and NetworkPolicy, and its snapshots when it asked for that. */
    private static void deleteBeside(Rollout rollout, KubernetesClient client) {
        String ns = rollout.getMetadata().getNamespace();
        String name = rollout.getMetadata().getName();
        // Owner references let the garbage collector do this too; deleting explicitly frees GPUs at once
        // and works where no garbage collector runs.
        client.pods().inNamespace(ns).withLabels(RolloutLabels.forRollout(name)).delete();
        Quietly.ignoreNotFound(() -> client.services().inNamespace(ns).withName(RolloutLabels.serviceName(name)).delete());
        Quietly.ignoreNotFound(() -> client.network().v1().networkPolicies().inNamespace(ns)
                .withName(RolloutLabels.networkPolicyName(name)).delete());
        if (Boolean.TRUE.equals(rollout.getSpec().deleteSnapshotsOnDelete)) {
            Quietly.ignoreNotFound(() -> client.resources(RolloutSnapshot.class).inNamespace(ns).list().getItems().stream()
                    .filter(s -> s.getSpec() != null && s.getSpec().rolloutRef != null && name.equals(s.getSpec().rolloutRef.name))
                    .forEach(s -> client.resource(s).delete()));
        }
    }

    private static void forget(Rollout rollout, ControllerMetrics metrics) {
        metrics.phase(rollout.getMetadata().getNamespace() + "/" + rollout.getMetadata().getName(), null);
        metrics.firstSight().forget(rollout);
    }
}
