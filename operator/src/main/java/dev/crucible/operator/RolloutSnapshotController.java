package dev.crucible.operator;

import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.snapshot.DaemonSetAgents;
import dev.crucible.controllers.snapshot.RolloutSnapshotReconciler;
import dev.crucible.controllers.snapshot.SnapshotAgentSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;

/** The RolloutSnapshot reconciler as a Quarkus bean, talking to the agent DaemonSet of this release. */
@ControllerConfiguration(name = RolloutSnapshotReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER)
@GradualRetry(maxAttempts = 5, initialInterval = 1000, intervalMultiplier = 2.0, maxInterval = 30_000)
@jakarta.inject.Singleton
public class RolloutSnapshotController extends RolloutSnapshotReconciler
        implements Reconciler<RolloutSnapshot>, Cleaner<RolloutSnapshot> {

    @Inject
    public RolloutSnapshotController(KubernetesClient client, ControllerMetrics metrics, CrucibleConfig config) {
        super(agents(client, config.snapshots()), metrics);
    }

    private static DaemonSetAgents agents(KubernetesClient client, CrucibleConfig.Snapshots c) {
        String pod = System.getenv("POD_NAMESPACE");
        String ns = c.agentNamespace().filter(s -> !s.isBlank())
                .orElse(pod != null && !pod.isBlank() ? pod : client.getNamespace());
        return new DaemonSetAgents(client, new SnapshotAgentSettings(ns, c.agentSelector(), c.agentPort(),
                Path.of(c.tokenFile())), Duration.ofSeconds(c.callTimeoutSeconds()));
    }
}
