package dev.crucible.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.environment.RLEnvironmentReconciler;
import dev.crucible.controllers.probe.ProbeModelReconciler;
import dev.crucible.controllers.rollout.RolloutReconciler;
import dev.crucible.controllers.snapshot.RolloutSnapshotReconciler;
import io.javaoperatorsdk.operator.api.config.ConfigurationService;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.rate.LinearRateLimiter;
import io.javaoperatorsdk.operator.processing.event.rate.RateLimited;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Quarkus operator runs each reconciler with the configuration written once, on the reconciler class
 * in {@code controllers} (the in-process operator of the e2e tier reads the same annotations): name, field
 * manager, retry, rate limit and the Rollout informer's lean store.
 */
@QuarkusTest
class ControllerConfigurationTest {

    @Inject
    ConfigurationService configuration;
    @Inject
    io.javaoperatorsdk.operator.Operator operator;
    @Inject
    RolloutController rollouts;
    @Inject
    EnvironmentController environments;
    @Inject
    ProbeModelController probes;
    @Inject
    RolloutSnapshotController snapshots;

    @Test
    void eachControllerRunsWithItsReconcilersAnnotations() {
        record Case(Reconciler<?> bean, Class<?> declaredOn, String name) {
        }
        for (Case c : List.of(new Case(rollouts, RolloutReconciler.class, RolloutReconciler.NAME),
                new Case(environments, RLEnvironmentReconciler.class, RLEnvironmentReconciler.NAME),
                new Case(probes, ProbeModelReconciler.class, ProbeModelReconciler.NAME),
                new Case(snapshots, RolloutSnapshotReconciler.class, RolloutSnapshotReconciler.NAME))) {
            @SuppressWarnings({"rawtypes", "unchecked"})
            ControllerConfiguration<?> cc = configuration.getConfigurationFor((Reconciler) c.bean());
            assertThat(cc.getName()).isEqualTo(c.name());
            assertThat(cc.fieldManager()).as(c.name()).isEqualTo(ServerSideApply.FIELD_MANAGER);

            GradualRetry retry = c.declaredOn().getAnnotation(GradualRetry.class);
            assertThat(cc.getRetry()).as(c.name()).isInstanceOfSatisfying(GenericRetry.class, r -> {
                assertThat(r.getMaxAttempts()).isEqualTo(retry.maxAttempts());
                assertThat(r.getInitialInterval()).isEqualTo(retry.initialInterval());
                assertThat(r.getIntervalMultiplier()).isEqualTo(retry.intervalMultiplier());
                assertThat(r.getMaxInterval()).isEqualTo(retry.maxInterval());
            });
            var declared = c.declaredOn().getAnnotation(io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration.class);
            assertThat(cc.maxReconciliationInterval()).as(c.name()).contains(Duration.of(declared.maxReconciliationInterval().interval(),
                    declared.maxReconciliationInterval().timeUnit().toChronoUnit()));
            // A Rollout has no finalizer: every event, its deletion included, reaches reconcile (no finalizer write
            // before the pod). Read from the controller as registered: the extension's own configuration drops it.
            assertThat(operator.getRegisteredController(c.name()).orElseThrow().getConfiguration().triggerReconcilerOnAllEvents())
                    .as(c.name() + " triggerReconcilerOnAllEvents").isEqualTo(declared.triggerReconcilerOnAllEvents());
            RateLimited limit = c.declaredOn().getAnnotation(RateLimited.class);
            if (limit != null) {
                assertThat(cc.getRateLimiter()).as(c.name()).isInstanceOfSatisfying(LinearRateLimiter.class, l -> {
                    assertThat(l.getLimitForPeriod()).isEqualTo(limit.maxReconciliations());
                    assertThat(l.getRefreshPeriod()).isEqualTo(Duration.of(limit.within(), limit.unit().toChronoUnit()));
                });
            }
        }
        assertThat(configuration.getConfigurationFor((Reconciler) rollouts).getInformerConfig().getItemStore())
                .isInstanceOf(dev.crucible.controllers.cache.LeanItemStore.class);
    }
}
