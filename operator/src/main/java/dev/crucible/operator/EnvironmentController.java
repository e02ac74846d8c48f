package dev.crucible.operator;

import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.controllers.environment.EnvironmentValidation;
import dev.crucible.controllers.environment.RLEnvironmentReconciler;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.source.SourceDerivation;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.rate.RateLimited;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;

/** The RLEnvironment reconciler as a Quarkus bean (see {@link RolloutController} for the repeated interface). */
@ControllerConfiguration(name = RLEnvironmentReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER,
        triggerReconcilerOnAllEvents = true)
@GradualRetry(maxAttempts = 10, initialInterval = 500, intervalMultiplier = 2.0, maxInterval = 60_000)
@RateLimited(maxReconciliations = 2, within = 1, unit = TimeUnit.SECONDS)
@jakarta.inject.Singleton
public class EnvironmentController extends RLEnvironmentReconciler implements Reconciler<RLEnvironment> {

    @Inject
    public EnvironmentController(EnvironmentValidation validation, ControllerMetrics metrics,
                                 dev.crucible.controllers.config.OperatorSettings settings) {
        // Derivation reads workflow files at a commit; remote repositories are fetched into this cache.
        super(validation, metrics, new SourceDerivation(
                java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "crucible-sources")), settings);
    }
}
