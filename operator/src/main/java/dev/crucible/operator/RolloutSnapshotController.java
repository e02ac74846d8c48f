package dev.crucible.operator;

import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.snapshot.RolloutSnapshotReconciler;
import dev.crucible.controllers.snapshot.SnapshotAgents;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import jakarta.inject.Inject;

/** The RolloutSnapshot reconciler as a Quarkus bean, talking to the agent DaemonSet of this release. */
@ControllerConfiguration(name = RolloutSnapshotReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER)
@GradualRetry(maxAttempts = 5, initialInterval = 1000, intervalMultiplier = 2.0, maxInterval = 30_000)
@jakarta.inject.Singleton
public class RolloutSnapshotController extends RolloutSnapshotReconciler
        implements Reconciler<RolloutSnapshot>, Cleaner<RolloutSnapshot> {

    @Inject
    public RolloutSnapshotController(SnapshotAgents agents, ControllerMetrics metrics) {
        super(agents, metrics);
    }
}
