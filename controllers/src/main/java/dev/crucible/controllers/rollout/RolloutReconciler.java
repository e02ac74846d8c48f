package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.OnHack;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.capacity.GangFit;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.snapshot.SnapshotAgents;
import dev.crucible.controllers.snapshot.SnapshotSchedule;
import dev.crucible.controllers.status.EventRecorder;
import dev.crucible.controllers.status.PermissionReporter;
import dev.crucible.controllers.status.StatusWriter;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.rate.RateLimited;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Reconciles a Rollout as a list of named steps: observe (its pods, its environment) → admit (gang fit)
 * → decide ({@link RolloutStateMachine}, the restore gate and a pending hack snapshot among its inputs) →
 * carry out onHack → restore a branch → act ({@link RolloutActuator}) → status and snapshots → stop pods → next wake-up. Everything
 * is derived from observed state and deterministic names, so a restart at any moment neither loses
 * nor duplicates pods.
 */
@ControllerConfiguration(name = RolloutReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER,
        triggerReconcilerOnAllEvents = true, informer = @io.javaoperatorsdk.operator.api.config.informer.Informer(itemStore = dev.crucible.controllers.cache.LeanItemStore.class))
@GradualRetry(maxAttempts = 10, initialInterval = 500, intervalMultiplier = 2.0, maxInterval = 60_000)
@RateLimited(maxReconciliations = 20, within = 1, unit = TimeUnit.SECONDS)
public class RolloutReconciler implements Reconciler<Rollout> {

    public static final String NAME = "rollout";
    /** Where its conditions are (the status may not exist yet), for the error and permission reports. */
    private static final Function<Rollout, List<Condition>> CONDITIONS = r -> r.getStatus() == null ? null : r.getStatus().conditions;

    private final OperatorSettings settings;
    private final ControllerMetrics metrics;
    private final EventRecorder.Lazy events = new EventRecorder.Lazy();
    private volatile RolloutEventSources sources;
    private final RolloutActuator actuator;
    private final SnapshotPolicy snapshotPolicy;
    private final BranchRestore branchRestore;
    private final RolloutTransitions transitions;
    private final WarmStart warmStart;

    public RolloutReconciler(OperatorSettings settings, ControllerMetrics metrics) {
        this(settings, metrics, null);
    }

    /** @param agents the snapshot agents that restore {@code spec.restoreFrom} branches (null: none) */
    public RolloutReconciler(OperatorSettings settings, ControllerMetrics metrics, SnapshotAgents agents) {
        this.settings = settings;
        this.metrics = metrics;
        this.actuator = new RolloutActuator(settings, () -> sources.pods);
        this.snapshotPolicy = new SnapshotPolicy(() -> sources.snapshots, events);
        this.branchRestore = new BranchRestore(() -> sources.snapshots, agents);
        this.transitions = new RolloutTransitions(metrics, events);
        this.warmStart = new WarmStart(settings, () -> sources.pods, metrics.warmPools());
    }

    @Override
    public List<EventSource<?, Rollout>> prepareEventSources(EventSourceContext<Rollout> context) {
        RolloutEventSources s = new RolloutEventSources(context);
        sources = s;
        return List.of(s.pods, s.environments, s.snapshots);
    }

    /** A failed reconcile as a ReconcileError condition and Event (StatusWriter.errorStatus); the SDK retries. */
    @Override
    public ErrorStatusUpdateControl<Rollout> updateErrorStatus(Rollout resource, Context<Rollout> context, Exception e) {
        return StatusWriter.errorStatus(resource, context, e, events, CONDITIONS);
    }

    /**
     * Every event reaches here, the Rollout's deletion included: no finalizer is added (it would cost a
     * write and a second trip through the queue before the pod), so a deleted Rollout's pods are deleted
     * on its delete event ({@link RolloutCleanup}), and by the garbage collector when the operator was down.
     */
    @Override
    public UpdateControl<Rollout> reconcile(Rollout rollout, Context<Rollout> context) {
        if (context.isPrimaryResourceDeleted()) {
            RolloutCleanup.onDeleted(rollout, context.getClient(), metrics, events.of(context.getClient()));
            return UpdateControl.noUpdate();
        }
        if (rollout.isMarkedForDeletion()) {
            // Deleting: the garbage collector removes what it owns; a finalizer an earlier version added is released here.
            return PermissionReporter.reconcile(rollout, context, events, CONDITIONS, () -> {
                RolloutCleanup.releaseLegacyFinalizer(rollout, context.getClient(), metrics);
                return UpdateControl.noUpdate();
            });
        }
        return PermissionReporter.reconcile(rollout, context, events, CONDITIONS,
                () -> metrics.timeReconcile(NAME, () -> reconcileObserved(rollout, context)));
    }

    /** Observe, then admit: a gang's release is decided under one lock, so each sees the ones released before it. */
    private UpdateControl<Rollout> reconcileObserved(Rollout rollout, Context<Rollout> context) {
        Instant now = Instant.now();
        RLEnvironment env = context.getSecondaryResource(RLEnvironment.class).orElse(null);
        Map<String, Pod> observed = new HashMap<>();
        for (Pod p : context.getSecondaryResources(Pod.class)) {
            observed.put(WarmStart.memberName(p), p); // a claimed pool pod stands for the member it was claimed as
        }
        int planned = env == null ? 0 : TopologyPlanner.plan(env.getSpec()).size();
        boolean releasing = GangAdmission.awaitingRelease(observed.values(), planned)
                && (rollout.getStatus() == null || rollout.getStatus().phase == null || !rollout.getStatus().phase.isTerminal());
        if (!releasing) {
            GangFit.Result fit = planned == 1 && settings.failWhenNoNodeFits() && GangAdmission.unschedulable(observed.values())
                    ? gangFit(context, observed) : null;
            return reconcileWith(rollout, context, env, planned, observed, fit, now);
        }
        GangAdmission.LOCK.lock();
        try {
            GangFit.Result fit = gangFit(context, observed);
            if (fit != null && fit.verdict() == GangFit.Verdict.NEVER && !settings.failWhenNoNodeFits()) {
                fit = new GangFit.Result(GangFit.Verdict.WAIT, fit.message() + " (waiting: nodes may be added)", Map.of());
            }
            return reconcileWith(rollout, context, env, planned, observed, fit, now);
        } finally {
            GangAdmission.LOCK.unlock();
        }
    }

    /** @param planned how many pods the environment plans (0 without one) */
    private UpdateControl<Rollout> reconcileWith(Rollout rollout, Context<Rollout> context, RLEnvironment env, int planned,
                                                 Map<String, Pod> observed, GangFit.Result fit, Instant now) {
        var client = context.getClient();
        RolloutStatus old = rollout.getStatus();
        RestoreGate.Result gate = rollout.getSpec().restoreFrom != null && env != null ? branchRestore.gate(rollout, env) : null;
        RolloutDecision d = RolloutStateMachine.decide(new Observed(rollout, env, env == null ? null : RolloutEventSources.validity(env),
                observed, fit, gate, snapshotPolicy.hackSnapshotPending(rollout), now,
                NodeLoss.lost(client, NodeLoss.nodesOfMissing(rollout, observed))));
        if (d.phase() == PhaseName.Hacked && HackResponse.of(rollout) != OnHack.NONE) {
            d = snapshotPolicy.respondToHack(rollout, d, old == null ? null : old.phase, client);
        }
        BranchRestore.Restored restore = branchRestore.whenPlaced(rollout, gate, d, old, env, observed);
        d = restore.decision();
        String restored = restore.what();
        Pod warm = d.create().isEmpty() || gate != null ? null : warmStart.claim(rollout, env, d, client, now);
        if (warm != null) {
            // Decided again with the claimed pod: it is usually running and ready already.
            observed.put(WarmStart.memberName(warm), warm);
            metrics.firstSight().podsCreated(rollout, now);
            d = RolloutStateMachine.decide(new Observed(rollout, env, RolloutEventSources.validity(env), observed, fit, null,
                    snapshotPolicy.hackSnapshotPending(rollout), now));
        }
        if (!d.create().isEmpty()) {
            String rejected = actuator.createMembers(rollout, env, d, client, gate);
            if (rejected != null) {
                // Admission refused the pod (e.g. an unknown RuntimeClass, a quota): say so and retry later.
                d = RolloutDecision.waiting(PhaseName.Pending, Reasons.POD_REJECTED, rejected, d.members(), Duration.ofSeconds(30));
            } else if (d.podsComplete()) {
                metrics.firstSight().podsCreated(rollout, now); // the status saying so may wait (StartupStatusHold)
            }
        }
        if (!d.ungate().isEmpty()) {
            actuator.ungate(rollout, env, d.ungate(), client, gate);
        }
        RolloutStatus status = status(rollout, d, observed, restored, now);
        SnapshotSchedule.Plan snapshotPlan = snapshotPolicy.schedule(rollout, status, client);
        metrics.phase(rollout.getMetadata().getNamespace() + "/" + rollout.getMetadata().getName(), d.phase());
        // Status first, and cached as written: a pod event racing the status event must not see the old
        // phase (e.g. Running with pods gone after a verdict).
        Duration hold = StartupStatusHold.holdBack(old, status, planned, now);
        if (hold == null && StatusWriter.writeIfChanged(rollout, status, Rollout::new, context)) {
            transitions.record(rollout, old, status, d, client);
        }
        if (d.stopPods()) {
            actuator.stopPods(rollout, observed, client);
        }
        return next(d, snapshotPlan, hold);
    }

    private RolloutStatus status(Rollout rollout, RolloutDecision d, Map<String, Pod> observed, String restored, Instant now) {
        RolloutStatus status = RolloutStatusBuilder.build(rollout, d, now, metrics.firstSight().origin(rollout, now),
                metrics.firstSight().podsCreatedAt(rollout));
        if (status.timings != null && status.timings.runningAt != null || d.phase().isTerminal()) {
            metrics.firstSight().forget(rollout);
        }
        status.start = WarmStart.start(observed, rollout.getStatus() == null ? null : rollout.getStatus().start);
        return RolloutStatusBuilder.withRestoreAndEndpoint(status, rollout, d, observed, restored, settings.verifierPort(), now);
    }

    /** @param hold a status held back until then (StartupStatusHold), or null */
    private static UpdateControl<Rollout> next(RolloutDecision d, SnapshotSchedule.Plan snapshotPlan, Duration hold) {
        UpdateControl<Rollout> control = UpdateControl.noUpdate();
        if (d.gateNew() && Reasons.CREATING_PODS.equals(d.reason())) {
            // The operator's own pod creations raise no events (the informer knows them), so come back at
            // once to release the gang that now exists in full.
            control.rescheduleAfter(10);
        } else if (d.requeueAfter() != null || snapshotPlan.next() != null || hold != null) {
            long after = Math.min(d.requeueAfter() == null ? Long.MAX_VALUE : d.requeueAfter().toMillis(),
                    snapshotPlan.next() == null ? Long.MAX_VALUE : snapshotPlan.next().toMillis());
            after = Math.min(after, hold == null ? Long.MAX_VALUE : hold.toMillis());
            control.rescheduleAfter(Math.max(100, after + 50));
        }
        return control;
    }

    private GangFit.Result gangFit(Context<Rollout> context, Map<String, Pod> observed) {
        boolean clusterWide = InformerConfiguration.allNamespacesWatched(context.getControllerConfiguration().getEffectiveNamespaces());
        return GangAdmission.check(context.getClient(), List.copyOf(observed.values()), clusterWide,
                () -> sources.pods.list().toList());
    }
}
