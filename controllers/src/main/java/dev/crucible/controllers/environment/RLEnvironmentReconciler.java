package dev.crucible.controllers.environment;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentStatus;
import dev.crucible.api.validation.ValidationError;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.source.SourceDerivation;
import dev.crucible.controllers.status.Conditions;
import dev.crucible.controllers.status.EventRecorder;
import dev.crucible.controllers.status.PermissionReporter;
import dev.crucible.controllers.status.StatusWriter;
import io.fabric8.kubernetes.api.model.Condition;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.rate.RateLimited;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Reconciles an RLEnvironment: validates it with the shared validator (Valid condition), and keeps
 * statistics over the Rollouts that reference it. It owns nothing, so it needs no finalizer.
 */
@ControllerConfiguration(name = RLEnvironmentReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER)
@GradualRetry(maxAttempts = 10, initialInterval = 500, intervalMultiplier = 2.0, maxInterval = 60_000)
// Statistics follow every rollout's phase; two passes a second per environment are plenty.
@RateLimited(maxReconciliations = 2, within = 1, unit = TimeUnit.SECONDS)
public class RLEnvironmentReconciler implements Reconciler<RLEnvironment> {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RLEnvironmentReconciler.class);


    public static final String NAME = "rlenvironment";
    /** Where its conditions are (the status may not exist yet), for the error and permission reports. */
    private static final Function<RLEnvironment, List<Condition>> CONDITIONS = r -> r.getStatus() == null ? null : r.getStatus().conditions;
    public static final String PHASE_READY = "Ready";
    public static final String PHASE_INVALID = "Invalid";

    /** Condition that says whether setup and test commands could be derived from spec.source's workflow. */
    public static final String CONDITION_DERIVED = "Derived";

    private final EnvironmentValidation validation;
    private final ControllerMetrics metrics;
    private final SourceDerivation derivation;
    private final EventRecorder.Lazy events = new EventRecorder.Lazy();

    public RLEnvironmentReconciler(EnvironmentValidation validation, ControllerMetrics metrics) {
        this(validation, metrics, null);
    }

    /** @param derivation derives spec.source workflows into status.derived; null turns derivation off */
    public RLEnvironmentReconciler(EnvironmentValidation validation, ControllerMetrics metrics, SourceDerivation derivation) {
        this.validation = validation;
        this.metrics = metrics;
        this.derivation = derivation;
    }

    @Override
    public List<EventSource<?, RLEnvironment>> prepareEventSources(EventSourceContext<RLEnvironment> context) {
        InformerEventSource<Rollout, RLEnvironment> rollouts = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(Rollout.class, RLEnvironment.class)
                        .withName("environment-rollouts")
                        .withSecondaryToPrimaryMapper(r -> r.getSpec() == null || r.getSpec().environmentRef == null ? Set.of()
                                : Set.of(new ResourceID(r.getSpec().environmentRef.name, r.getMetadata().getNamespace())))
                        .withOnUpdateFilter((updated, old) -> !Objects.equals(outcome(updated), outcome(old)))
                        .withItemStore(new dev.crucible.controllers.cache.LeanItemStore<>())
                        .build(), context);
        return List.of(rollouts);
    }

    private static RolloutOutcome outcome(Rollout r) {
        return RolloutOutcome.of(r);
    }

    /** A failed reconcile as a ReconcileError condition and Event (StatusWriter.errorStatus); the SDK retries. */
    @Override
    public ErrorStatusUpdateControl<RLEnvironment> updateErrorStatus(RLEnvironment resource, Context<RLEnvironment> context, Exception e) {
        return StatusWriter.errorStatus(resource, context, e, events, CONDITIONS);
    }

    @Override
    public UpdateControl<RLEnvironment> reconcile(RLEnvironment env, Context<RLEnvironment> context) {
        return PermissionReporter.reconcile(env, context, events, CONDITIONS,
                () -> metrics.timeReconcile(NAME, () -> reconcileObserved(env, context)));
    }

    private UpdateControl<RLEnvironment> reconcileObserved(RLEnvironment env, Context<RLEnvironment> context) {
        Instant now = Instant.now();
        List<ValidationError> errors = validation.validate(env);
        List<RolloutOutcome> outcomes = context.getSecondaryResources(Rollout.class).stream()
                .map(RolloutOutcome::of).toList();
        RLEnvironmentStatus old = env.getStatus();
        RLEnvironmentStatus status = new RLEnvironmentStatus();
        Long generation = env.getMetadata().getGeneration();
        status.observedGeneration = generation;
        status.conditions = old == null || old.conditions == null ? new java.util.ArrayList<>() : old.conditions;
        boolean valid = errors.isEmpty();
        status.phase = valid ? PHASE_READY : PHASE_INVALID;
        status.conditions = Conditions.set(status.conditions, ConditionTypes.VALID, valid,
                valid ? "Validated" : "ValidationFailed",
                valid ? "the environment passed schema, CEL and semantic checks" : EnvironmentValidation.summary(errors),
                generation, now);
        status.conditions = Conditions.set(status.conditions, ConditionTypes.READY, valid,
                valid ? "Validated" : "ValidationFailed",
                valid ? "rollouts can start" : "rollouts stay Pending until the environment is fixed", generation, now);
        status.statistics = EnvironmentStatisticsCalculator.compute(outcomes, env.getSpec().learnableBand);
        SourceDerivation.Result derived = valid && derivation != null ? derivation.derive(env.getSpec().source) : null;
        if (derived != null) {
            status.derived = derived.status();
            status.conditions = Conditions.set(status.conditions, CONDITION_DERIVED, derived.ok(),
                    derived.ok() ? "Derived" : "DerivationFailed", derived.ok() ? derived.summary() : derived.error(),
                    generation, now);
        } else {
            status.conditions = Conditions.remove(status.conditions, CONDITION_DERIVED);
        }
        if (dev.crucible.controllers.status.StatusWriter.writeIfChanged(env, status, RLEnvironment::new, context)) {
            boolean wasValid = old != null && Conditions.isTrue(old.conditions, ConditionTypes.VALID);
            boolean hadValidity = old != null && Conditions.find(old.conditions, ConditionTypes.VALID) != null;
            if (!valid && (wasValid || !hadValidity)) {
                LOG.info("RLEnvironment {}/{}: invalid: {}", env.getMetadata().getNamespace(), env.getMetadata().getName(),
                        EnvironmentValidation.summary(errors));
                events.of(context.getClient()).warning(env, "ValidationFailed", EnvironmentValidation.summary(errors));
            } else if (valid && hadValidity && !wasValid) {
                events.of(context.getClient()).normal(env, "Validated", "the environment is valid again");
            }
            var before = old == null ? null : Conditions.find(old.conditions, CONDITION_DERIVED);
            if (derived != null && !derived.ok() && (before == null || !Objects.equals(before.getMessage(), derived.error()))) {
                events.of(context.getClient()).warning(env, "DerivationFailed", derived.error());
            }
        }
        return UpdateControl.noUpdate();
    }

}
