package dev.crucible.operator;

import dev.crucible.controllers.snapshot.SnapshotAgents;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.rollout.RolloutReconciler;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.rate.RateLimited;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;

/**
 * The Rollout reconciler as a Quarkus bean. The interfaces and annotations are repeated on purpose: the
 * operator SDK reads reconcilers from Quarkus' index, which holds this module's classes, not the controllers
 * jar, and ignores inherited annotations (checked). ControllerConfigurationTest fails when the configuration
 * the operator runs with differs from the reconciler class's in {@code controllers}.
 */
@ControllerConfiguration(name = RolloutReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER,
        triggerReconcilerOnAllEvents = true, informer = @io.javaoperatorsdk.operator.api.config.informer.Informer(itemStore = LeanRolloutStore.class))
@GradualRetry(maxAttempts = 10, initialInterval = 500, intervalMultiplier = 2.0, maxInterval = 60_000)
@RateLimited(maxReconciliations = 20, within = 1, unit = TimeUnit.SECONDS)
@jakarta.inject.Singleton
public class RolloutController extends RolloutReconciler implements Reconciler<Rollout> {

    @Inject
    public RolloutController(OperatorSettings settings, ControllerMetrics metrics, SnapshotAgents agents) {
        super(settings, metrics, agents);
    }
}
