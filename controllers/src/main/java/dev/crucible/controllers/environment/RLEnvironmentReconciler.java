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
import dev.crucible.controllers.common.WarmPoolLabels;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Reconciles an RLEnvironment: validates it with the shared validator (Valid condition), keeps
 * statistics over the Rollouts that reference it, and keeps its warm pool filled ({@link WarmPoolFiller}).
 * No finalizer: its pool's unclaimed pods are deleted on its delete event, and by the garbage collector
 * (they are owned by it) when the operator was down.
 */
@ControllerConfiguration(name = RLEnvironmentReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER,
        triggerReconcilerOnAllEvents = true)
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
    private final WarmPoolFiller pool;
    private volatile InformerEventSource<Pod, RLEnvironment> poolPods;

    public RLEnvironmentReconciler(EnvironmentValidation validation, ControllerMetrics metrics) {
        this(validation, metrics, null, OperatorSettings.defaults());
    }

    /**
     * @param derivation derives spec.source workflows into status.derived; null turns derivation off
     * @param settings   the Rollout reconciler's: a pool pod is the pod a Rollout would get, so both build it alike
     */
    public RLEnvironmentReconciler(EnvironmentValidation validation, ControllerMetrics metrics, SourceDerivation derivation,
                                   OperatorSettings settings) {
        this.validation = validation;
        this.metrics = metrics;
        this.derivation = derivation;
        this.pool = new WarmPoolFiller(settings);
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
        // The pool's pods, claimed or not, by the environment named on them (claimed ones are owned by their Rollout).
        InformerEventSource<Pod, RLEnvironment> poolPods = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(Pod.class, RLEnvironment.class)
                        .withName("environment-pool-pods")
                        .withLabelSelector(WarmPoolLabels.POOL)
                        .withSecondaryToPrimaryMapper(p -> p.getMetadata().getAnnotations() == null
                                || p.getMetadata().getAnnotations().get(WarmPoolLabels.ENVIRONMENT_ANNOTATION) == null ? Set.of()
                                : Set.of(new ResourceID(p.getMetadata().getAnnotations().get(WarmPoolLabels.ENVIRONMENT_ANNOTATION),
                                p.getMetadata().getNamespace())))
                        .withPrimaryToSecondaryMapper((RLEnvironment e) -> Set.of())
                        .withItemStore(new dev.crucible.controllers.cache.LeanItemStore<>())
                        .build(), context);
        this.poolPods = poolPods;
        return List.of(rollouts, poolPods);
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
        if (context.isPrimaryResourceDeleted()) {
            if (env.getSpec() != null && env.getSpec().warmPool != null) {
                PermissionReporter.afterDeletion(events.of(context.getClient()), env, "warm pool cleanup",
                        () -> pool.deleted(env, context.getClient()));
            }
            metrics.warmPools().remove(env.getMetadata().getNamespace(), env.getMetadata().getName());
            return UpdateControl.noUpdate();
        }
        if (env.isMarkedForDeletion()) {
            return UpdateControl.noUpdate();
        }
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
        WarmPoolFiller.Result filled = pool.fill(env, poolPods(env), valid, status.conditions, context.getClient(), now);
        status.warmPool = filled.status();
        var p = filled.status();
        metrics.warmPools().pool(env.getMetadata().getNamespace(), env.getMetadata().getName(), p == null ? null : p.ready,
                p == null ? null : p.starting, p == null ? null : p.claimed, p == null ? null : p.target);
        status.conditions = filled.conditions();
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
        UpdateControl<RLEnvironment> control = UpdateControl.noUpdate();
        return filled.requeue() == null ? control : control.rescheduleAfter(filled.requeue().toMillis());
    }

    /** The pods of this environment's pool from the cache (the label holds the name cut to 63 characters). */
    private java.util.Collection<Pod> poolPods(RLEnvironment env) {
        var source = poolPods;
        if (source == null) {
            return List.of();
        }
        String name = env.getMetadata().getName();
        return source.list(env.getMetadata().getNamespace(), p -> p.getMetadata().getAnnotations() != null
                && name.equals(p.getMetadata().getAnnotations().get(WarmPoolLabels.ENVIRONMENT_ANNOTATION))).toList();
    }
}
