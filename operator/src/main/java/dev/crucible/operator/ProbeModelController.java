package dev.crucible.operator;

import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.controllers.config.CrucibleImages;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.probe.ProbeModelReconciler;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.rate.RateLimited;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;

/** The ProbeModel reconciler as a Quarkus bean (see {@link RolloutController} for the repeated interface). */
@ControllerConfiguration(name = ProbeModelReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER,
        maxReconciliationInterval = @MaxReconciliationInterval(interval = 10, timeUnit = TimeUnit.MINUTES))
@GradualRetry(maxAttempts = 10, initialInterval = 500, intervalMultiplier = 2.0, maxInterval = 60_000)
@RateLimited(maxReconciliations = 5, within = 1, unit = TimeUnit.SECONDS)
@jakarta.inject.Singleton
public class ProbeModelController extends ProbeModelReconciler implements Reconciler<ProbeModel> {

    @Inject
    public ProbeModelController(OperatorSettings settings, ControllerMetrics metrics, CrucibleConfig config) {
        super(settings, metrics, config.probe().serverImage().orElseGet(CrucibleImages::probeServer));
    }
}
