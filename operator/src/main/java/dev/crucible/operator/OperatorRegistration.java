package dev.crucible.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.quarkiverse.operatorsdk.runtime.QuarkusConfigurationService;
import io.quarkiverse.operatorsdk.runtime.QuarkusControllerConfiguration;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * The Operator, with each reconciler registered as the extension's own producer does it but one thing: the
 * extension (7.4.0) reads {@code triggerReconcilerOnAllEvents} from the annotation, but its configuration
 * class has no such method, so the SDK's default (false) would apply and the Rollout controller (no
 * finalizer) would never see a Rollout's deletion. A reconciler whose annotation sets it runs with the
 * extension's configuration that answers it ({@link AllEvents}). ControllerConfigurationTest checks what the
 * registered controllers run with. CRDs are not applied here (the chart installs them;
 * {@code quarkus.operator-sdk.crd.apply=false}).
 */
public class OperatorRegistration {

    @Produces
    @Singleton
    @Alternative
    @Priority(1)
    Operator operator(QuarkusConfigurationService configuration, Instance<Reconciler<? extends HasMetadata>> reconcilers) {
        Operator operator = new Operator(configuration);
        for (Reconciler<? extends HasMetadata> reconciler : reconcilers) {
            register(configuration, reconciler, operator);
        }
        operator.installShutdownHook(Duration.ofSeconds(configuration.getTerminationTimeoutSeconds()));
        return operator;
    }

    private static <P extends HasMetadata> void register(QuarkusConfigurationService configuration, Reconciler<P> reconciler,
                                                         Operator operator) {
        QuarkusControllerConfiguration<P> config = configuration.getConfigurationFor(reconciler);
        ControllerConfiguration declared = reconciler.getClass().getAnnotation(ControllerConfiguration.class);
        if (config != null && declared != null && declared.triggerReconcilerOnAllEvents()) {
            operator.register(reconciler, new AllEvents<>(config, configuration));
        } else {
            operator.register(reconciler);
        }
    }

    /** The extension's configuration of a controller, unchanged but for {@code triggerReconcilerOnAllEvents}. */
    static final class AllEvents<P extends HasMetadata> extends QuarkusControllerConfiguration<P> {
        AllEvents(QuarkusControllerConfiguration<P> c, QuarkusConfigurationService parent) {
            super(c.getInformerConfig(), c.getName(), c.isGenerationAware(), c.getAssociatedReconcilerClassName(), c.getRetry(),
                    c.getRateLimiter(), c.maxReconciliationInterval().orElse(Duration.ofHours(10)), c.getFinalizerName(),
                    c.fieldManager(), c.getWorkflow(), c.getResourceTypeName(), c.getResourceClass());
            setParent(parent);
        }

        @Override
        public boolean triggerReconcilerOnAllEvents() {
            return true;
        }
    }
}
