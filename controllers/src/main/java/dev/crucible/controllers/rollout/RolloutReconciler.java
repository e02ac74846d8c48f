package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.api.v1alpha1.rollout.OnHack;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.api.v1alpha1.rollout.RolloutPhase;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.capacity.GangFit;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.snapshot.SnapshotAgents;
import dev.crucible.controllers.snapshot.SnapshotPlan;
import dev.crucible.controllers.snapshot.SnapshotSchedule;
import dev.crucible.snapshot.disk.WorkspacePatch;
import dev.crucible.controllers.status.Conditions;
import dev.crucible.controllers.status.EventRecorder;
import dev.crucible.controllers.status.StatusComparison;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.rate.RateLimited;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Reconciles a Rollout: observe (its pods, its environment) → decide ({@link RolloutStateMachine}) →
 * act (create / ungate / stop pods, and the objects beside them) → write status when it changed.
 * Everything is derived from observed state and deterministic names, so a restart at any moment
 * neither loses nor duplicates pods.
 */
@ControllerConfiguration(name = RolloutReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER,
        informer = @io.javaoperatorsdk.operator.api.config.informer.Informer(itemStore = dev.crucible.controllers.cache.LeanItemStore.class))
@GradualRetry(maxAttempts = 10, initialInterval = 500, intervalMultiplier = 2.0, maxInterval = 60_000)
@RateLimited(maxReconciliations = 20, within = 1, unit = TimeUnit.SECONDS)
public class RolloutReconciler implements Reconciler<Rollout>, Cleaner<Rollout> {

    public static final String NAME = "rollout";
    static final String BY_ENVIRONMENT = "rollouts-by-environment";

    private final OperatorSettings settings;
    private final ControllerMetrics metrics;
    private final RolloutPodBuilder podBuilder;
    private final SnapshotAgents agents;
    private volatile InformerEventSource<Pod, Rollout> pods;
    private volatile InformerEventSource<RolloutSnapshot, Rollout> snapshots;
    private final EventRecorder.Lazy events = new EventRecorder.Lazy();
    private volatile GangKindHolder gangKind;

    /** The gang scheduler found at first use (CRDs are looked up once, not per reconcile). */
    private record GangKindHolder(GangSchedulerSupport.Kind kind) {
    }

    public RolloutReconciler(OperatorSettings settings, ControllerMetrics metrics) {
        this(settings, metrics, null);
    }

    /** @param agents the snapshot agents that restore {@code spec.restoreFrom} branches (null: none) */
    public RolloutReconciler(OperatorSettings settings, ControllerMetrics metrics, SnapshotAgents agents) {
        this.settings = settings;
        this.metrics = metrics;
        this.podBuilder = new RolloutPodBuilder(settings);
        this.agents = agents;
    }

    @Override
    public List<EventSource<?, Rollout>> prepareEventSources(EventSourceContext<Rollout> context) {
        context.getPrimaryCache().addIndexer(BY_ENVIRONMENT, r -> List.of(environmentKey(r.getMetadata().getNamespace(),
                r.getSpec() == null || r.getSpec().environmentRef == null ? "" : r.getSpec().environmentRef.name)));
        pods = new InformerEventSource<>(InformerEventSourceConfiguration.from(Pod.class, Rollout.class)
                .withName("rollout-pods")
                .withLabelSelector(RolloutLabels.MANAGED_BY + "=" + RolloutLabels.MANAGED_BY_VALUE)
                .withItemStore(new dev.crucible.controllers.cache.LeanItemStore<>())
                .build(), context);
        InformerEventSource<RLEnvironment, Rollout> environments = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(RLEnvironment.class, Rollout.class)
                        .withName("rollout-environments")
                        .withPrimaryToSecondaryMapper((Rollout r) -> r.getSpec() == null || r.getSpec().environmentRef == null
                                ? Set.of() : Set.of(new ResourceID(r.getSpec().environmentRef.name, r.getMetadata().getNamespace())))
                        .withSecondaryToPrimaryMapper(env -> context.getPrimaryCache()
                                .byIndex(BY_ENVIRONMENT, environmentKey(env.getMetadata().getNamespace(), env.getMetadata().getName()))
                                .stream().map(ResourceID::fromResource).collect(Collectors.toSet()))
                        // Statistics change an environment's status all the time; only spec and validity matter here.
                        .withOnUpdateFilter((updated, old) -> !Objects.equals(updated.getMetadata().getGeneration(),
                                old.getMetadata().getGeneration()) || !Objects.equals(validity(updated), validity(old)))
                        .build(), context);
        // Every snapshot of a rollout (periodic, on-hack, or a person's), keyed by spec.rolloutRef.
        snapshots = new InformerEventSource<>(InformerEventSourceConfiguration.from(RolloutSnapshot.class, Rollout.class)
                .withName("rollout-snapshots")
                .withSecondaryToPrimaryMapper(snap -> snap.getSpec() == null || snap.getSpec().rolloutRef == null ? Set.of()
                        : Set.of(new ResourceID(snap.getSpec().rolloutRef.name, snap.getMetadata().getNamespace())))
                .withPrimaryToSecondaryMapper((Rollout r) -> Set.of())
                .build(), context);
        return List.of(pods, environments, snapshots);
    }

    @Override
    public UpdateControl<Rollout> reconcile(Rollout rollout, Context<Rollout> context) {
        return dev.crucible.controllers.status.PermissionReporter.reconcile(rollout, context, events, r -> r.getStatus() == null ? null : r.getStatus().conditions,
                () -> metrics.timeReconcile(NAME, () -> reconcileObserved(rollout, context)));
    }

    private UpdateControl<Rollout> reconcileObserved(Rollout rollout, Context<Rollout> context) {
        Instant now = Instant.now();
        KubernetesClient client = context.getClient();
        RLEnvironment env = context.getSecondaryResource(RLEnvironment.class).orElse(null);
        Map<String, Pod> observed = new HashMap<>();
        for (Pod p : context.getSecondaryResources(Pod.class)) {
            observed.put(p.getMetadata().getName(), p);
        }
        int planned = env == null ? 0 : TopologyPlanner.plan(env.getSpec()).size();
        boolean releasing = GangAdmission.awaitingRelease(observed.values(), planned)
                && (rollout.getStatus() == null || rollout.getStatus().phase == null || !rollout.getStatus().phase.isTerminal());
        if (!releasing) {
            GangFit.Result fit = planned == 1 && settings.failWhenNoNodeFits() && GangAdmission.unschedulable(observed.values())
                    ? GangAdmission.check(client, List.copyOf(observed.values()), clusterWide(context), () -> pods.list().toList()) : null;
            return reconcileWith(rollout, context, env, observed, fit, now);
        }
        GangAdmission.LOCK.lock(); // one gang release decision at a time: each sees the members released before it
        try {
            GangFit.Result fit = GangAdmission.check(client, List.copyOf(observed.values()), clusterWide(context), () -> pods.list().toList());
            if (fit != null && fit.verdict() == GangFit.Verdict.NEVER && !settings.failWhenNoNodeFits()) {
                fit = new GangFit.Result(GangFit.Verdict.WAIT, fit.message() + " (waiting: nodes may be added)", Map.of());
            }
            return reconcileWith(rollout, context, env, observed, fit, now);
        } finally {
            GangAdmission.LOCK.unlock();
        }
    }

    private static boolean clusterWide(Context<Rollout> context) {
        return io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration.allNamespacesWatched(
                context.getControllerConfiguration().getEffectiveNamespaces());
    }

    private UpdateControl<Rollout> reconcileWith(Rollout rollout, Context<Rollout> context, RLEnvironment env,
                                                 Map<String, Pod> observed, GangFit.Result fit, Instant now) {
        KubernetesClient client = context.getClient();
        RolloutDecision d = RolloutStateMachine.decide(rollout, env, env == null ? null : validity(env), observed, now, fit);
        RolloutStatus old = rollout.getStatus();
        RolloutPhase oldPhase = old == null ? null : old.phase;
        RestoreGate.Result gate = null;
        if (rollout.getSpec().restoreFrom != null && env != null && !d.phase().isTerminal()) {
            gate = restoreGate(rollout, env);
            if (gate.verdict() == RestoreGate.Verdict.FAIL) {
                d = RolloutStateMachine.terminal(RolloutPhase.Failed, gate.reason(), gate.message(), old, true);
            } else if (gate.verdict() == RestoreGate.Verdict.WAIT && observed.isEmpty()) {
                d = RolloutStateMachine.waiting(RolloutPhase.Pending, gate.reason(), gate.message(), old,
                        java.time.Duration.ofSeconds(2));
            }
        }
        if (d.phase() == RolloutPhase.Hacked && HackResponse.of(rollout) != OnHack.NONE) {
            d = respondToHack(rollout, d, oldPhase, client);
        }
        String restored = null;
        // As soon as every branch pod is on its node: its init container waits for the workspace.
        if (gate != null && gate.verdict() == RestoreGate.Verdict.GO
                && (d.phase() == RolloutPhase.Initializing || d.phase() == RolloutPhase.Running)
                && (old == null || old.restoredFrom == null)) {
            try {
                restored = restoreMembers(rollout, gate.snapshot(), env, observed);
            } catch (RuntimeException e) {
                d = RolloutStateMachine.terminal(RolloutPhase.Failed, Reasons.RESTORE_FAILED, "restoring "
                        + rollout.getSpec().restoreFrom.snapshotName + " failed: " + e.getMessage(), old, true);
            }
        }

        if (!d.create().isEmpty()) {
            String rejected = createMembers(rollout, env, d, client, gate == null ? Map.of() : gate.pins());
            if (rejected != null) {
                // Admission refused the pod (e.g. an unknown RuntimeClass, a quota): say so and retry later.
                d = new RolloutDecision(RolloutPhase.Pending, Reasons.POD_REJECTED, rejected, List.of(), false, List.of(),
                        false, false, d.members(), null, java.time.Duration.ofSeconds(30));
            }
        }
        if (!d.ungate().isEmpty()) {
            ungate(rollout, env, d.ungate(), client, gate == null ? Map.of() : gate.pins());
        }

        RolloutStatus status = RolloutStatusBuilder.build(rollout, d, now, metrics.firstSight().origin(rollout, now));
        if (status.timings != null && status.timings.runningAt != null || d.phase().isTerminal()) {
            metrics.firstSight().forget(rollout);
        }
        if (restored != null) {
            status.restoredFrom = rollout.getSpec().restoreFrom.snapshotName;
            status.conditions = Conditions.set(status.conditions, Reasons.RESTORED, true, Reasons.RESTORED, restored,
                    rollout.getMetadata().getGeneration(), now);
        }
        if (rollout.getSpec().mode == RolloutMode.INTERACTIVE && d.members() != null && !d.members().isEmpty()) {
            Pod leader = observed.get(d.members().get(0).pod);
            if (leader != null && leader.getStatus() != null && leader.getStatus().getPodIP() != null && !d.phase().isTerminal()) {
                status.endpoint = "http://" + leader.getStatus().getPodIP() + ":" + settings.verifierPort();
            }
        }
        SnapshotSchedule.Plan snapshotPlan = scheduleSnapshots(rollout, status, client);
        String key = rollout.getMetadata().getNamespace() + "/" + rollout.getMetadata().getName();
        metrics.phase(key, d.phase());
        if (!StatusComparison.same(old, status)) {
            // Write status first and cache what was written: a pod event that races the status event
            // must not see the old phase (e.g. Running with pods gone after a verdict).
            Rollout patch = new Rollout();
            patch.setMetadata(new ObjectMetaBuilder().withName(rollout.getMetadata().getName())
                    .withNamespace(rollout.getMetadata().getNamespace()).build());
            patch.setStatus(status);
            PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(rollout, patch, context);
            recordTransition(rollout, oldPhase, old, status, d, client);
        }
        if (d.stopPods()) {
            stopPods(rollout, observed, client);
        }
        UpdateControl<Rollout> control = UpdateControl.noUpdate();
        if (d.gateNew() && Reasons.CREATING_PODS.equals(d.reason())) {
            // The operator's own pod creations raise no events (the informer knows them), so come back at
            // once to release the gang that now exists in full.
            control.rescheduleAfter(10);
        } else if (d.requeueAfter() != null || snapshotPlan.next() != null) {
            long after = Math.min(d.requeueAfter() == null ? Long.MAX_VALUE : d.requeueAfter().toMillis(),
                    snapshotPlan.next() == null ? Long.MAX_VALUE : snapshotPlan.next().toMillis());
            control.rescheduleAfter(Math.max(100, after + 50));
        }
        return control;
    }

    /**
     * The snapshot policy: creates the periodic snapshot that is due, prunes beyond {@code keep}, and
     * reports the newest Ready snapshot in {@code status.lastSnapshot}.
     */
    private SnapshotSchedule.Plan scheduleSnapshots(Rollout rollout, RolloutStatus status, KubernetesClient client) {
        String ns = rollout.getMetadata().getNamespace();
        List<RolloutSnapshot> mine = snapshotsOf(rollout);
        status.lastSnapshot = SnapshotSchedule.lastReady(mine);
        Rollout current = new Rollout();
        current.setMetadata(rollout.getMetadata());
        current.setSpec(rollout.getSpec());
        current.setStatus(status);
        SnapshotSchedule.Plan plan = SnapshotSchedule.plan(current, mine, Instant.now());
        if (plan.create() != null) {
            ServerSideApply.apply(client, plan.create(), ServerSideApply.POLICY_FIELD_MANAGER);
        }
        for (String old : plan.delete()) {
            quietly(() -> client.resources(RolloutSnapshot.class).inNamespace(ns).withName(old).delete());
        }
        return plan;
    }

    /** Creates what is missing; returns why the API server refused a pod (4xx), or null. */
    /** Every snapshot of the rollout (periodic, on-hack, or a person's), from the informer. */
    private List<RolloutSnapshot> snapshotsOf(Rollout rollout) {
        String name = rollout.getMetadata().getName();
        return snapshots.list(rollout.getMetadata().getNamespace(), s -> s.getSpec() != null && s.getSpec().rolloutRef != null
                && name.equals(s.getSpec().rolloutRef.name)).toList();
    }

    /**
     * {@code onHack: snapshot} holds the pods until {@code <rollout>-hack} is taken (or failed);
     * {@code onHack: revert} starts {@code <rollout>-revert} from the newest Ready snapshot, once.
     */
    private RolloutDecision respondToHack(Rollout rollout, RolloutDecision d, RolloutPhase oldPhase, KubernetesClient client) {
        String ns = rollout.getMetadata().getNamespace();
        if (HackResponse.of(rollout) == OnHack.SNAPSHOT) {
            RolloutSnapshot hack = snapshots.get(new ResourceID(HackResponse.hackSnapshotName(rollout), ns)).orElse(null);
            if (hack == null) {
                ServerSideApply.apply(client, HackResponse.hackSnapshot(rollout), ServerSideApply.POLICY_FIELD_MANAGER);
            }
            SnapshotPhase phase = hack == null || hack.getStatus() == null ? null : hack.getStatus().phase;
            if (phase != SnapshotPhase.Ready && phase != SnapshotPhase.Failed && phase != SnapshotPhase.Expired) {
                return new RolloutDecision(d.phase(), d.reason(), d.message(), List.of(), false, List.of(), false,
                        d.podsComplete(), d.members(), d.result(), java.time.Duration.ofSeconds(2));
            }
            return d;
        }
        if (oldPhase != RolloutPhase.Hacked) {
            String last = SnapshotSchedule.lastReady(snapshotsOf(rollout));
            Rollout branch = last == null ? null : HackResponse.revertBranch(rollout, last);
            if (branch == null) {
                events.of(client).warning(rollout, "RevertSkipped", last == null ? "onHack: revert, but no Ready snapshot to revert to"
                        : "onHack: revert, but this rollout is already " + HackResponse.MAX_REVERTS + " reverts deep");
            } else {
                ServerSideApply.apply(client, branch, ServerSideApply.POLICY_FIELD_MANAGER);
                events.of(client).normal(rollout, "Reverted", "started Rollout " + branch.getMetadata().getName()
                        + " from snapshot " + last + " (the last good state before the hack)");
                return new RolloutDecision(d.phase(), d.reason(), d.message() + "; reverted: Rollout "
                        + branch.getMetadata().getName() + " continues from snapshot " + last, d.create(), d.gateNew(),
                        d.ungate(), d.stopPods(), d.podsComplete(), d.members(), d.result(), d.requeueAfter());
            }
        }
        return d;
    }

    /** The restore gate for {@code spec.restoreFrom}: the snapshot from the informer, the plan from the environment. */
    private RestoreGate.Result restoreGate(Rollout rollout, RLEnvironment env) {
        String name = rollout.getSpec().restoreFrom.snapshotName;
        RolloutSnapshot snapshot = snapshots.get(new ResourceID(name, rollout.getMetadata().getNamespace())).orElse(null);
        return RestoreGate.check(name, snapshot, TopologyPlanner.plan(env.getSpec()),
                env.getSpec().resources == null ? null : env.getSpec().resources.gpuModel);
    }

    /** Puts each snapshotted member back into its branch pod, through the agent of the pod's node. */
    private String restoreMembers(Rollout rollout, RolloutSnapshot snapshot, RLEnvironment env, Map<String, Pod> observed) {
        if (agents == null) {
            throw new SnapshotAgents.Unavailable("this operator has no snapshot agents configured");
        }
        String name = snapshot.getMetadata().getName();
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        List<WorkspacePatch> patches = new java.util.ArrayList<>(rollout.getSpec().patches == null ? List.of()
                : rollout.getSpec().patches.stream().map(p -> new WorkspacePatch(p.path, p.content, p.diff)).toList());
        int userPatches = patches.size();
        // Last: the marker the branch pod's init container waits for.
        patches.add(new WorkspacePatch(RolloutPodBuilder.RESTORED_MARKER, name + "\n", null));
        boolean processes = snapshot.getSpec().include == null || !Boolean.FALSE.equals(snapshot.getSpec().include.memory);
        StringBuilder what = new StringBuilder("restored from " + name
                + (userPatches == 0 ? "" : " with " + userPatches + " patch(es)") + (processes ? "" : " (workspace only)") + ":");
        for (int i = 0; i < plan.size(); i++) {
            Pod pod = observed.get(plan.get(i).podName(rollout.getMetadata().getName()));
            String id = SnapshotPlan.idOf(snapshot.getStatus().members.get(i).imageLocation);
            what.append(' ').append(pod.getMetadata().getName()).append(" (")
                    .append(agents.restore(pod, RolloutLabels.AGENT_CONTAINER, id, patches, processes)).append(')');
        }
        return what.toString();
    }

    private String createMembers(Rollout rollout, RLEnvironment env, RolloutDecision d, KubernetesClient client,
                                 Map<Integer, String> pins) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        boolean gang = TopologyPlanner.isGang(plan);
        GangSchedulerSupport.Kind kind = gang ? gangKind(client) : null;
        // Objects beside the pods first: the pods mount the ConfigMap and resolve through the Service.
        applyBeside(client, EnvironmentConfigMapBuilder.build(rollout, env));
        createOnce(client, EnvApiTokenSecretBuilder.build(rollout));
        applyBeside(client, EgressPolicyBuilder.build(rollout, env, gang));
        if (gang) {
            applyBeside(client, GangServiceBuilder.build(rollout, settings.rendezvousPort(), settings.verifierPort()));
            if (kind != null) {
                var podGroup = GangSchedulerSupport.podGroup(kind, rollout, plan.size(), TopologyPlanner.gangTimeoutSeconds(env.getSpec()));
                if (podGroup != null) {
                    applyBeside(client, podGroup);
                }
            }
        }
        for (MemberPlan m : d.create()) {
            Pod pod = pinned(podBuilder.build(rollout, env, m, plan, d.gateNew(), kind), plan.indexOf(m), pins);
            try {
                Pod created = ServerSideApply.apply(client, pod);
                // Let the next reconcile see the pod even before the informer's watch delivers it.
                pods.handleRecentResourceCreate(ResourceID.fromResource(rollout), created);
            } catch (KubernetesClientException e) {
                // 403 from a quota or a policy is the pod's problem; an RBAC refusal is the operator's (reported apart).
                if (e.getCode() == 400 || e.getCode() == 422
                        || e.getCode() == 403 && dev.crucible.controllers.status.PermissionDenied.of(e).isEmpty()) {
                    return "pod " + pod.getMetadata().getName() + " was refused: "
                            + (e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage());
                }
                throw e;
            }
        }
        return null;
    }

    /**
     * Re-applies each gated member without the gate: the operator owns {@code schedulingGates}, so
     * leaving it out of the applied pod removes it, and the scheduler then sees the whole gang at once.
     */
    private void ungate(Rollout rollout, RLEnvironment env, List<String> names, KubernetesClient client,
                        Map<Integer, String> pins) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        GangSchedulerSupport.Kind kind = gangKind(client);
        for (MemberPlan m : plan) {
            Pod pod = pinned(podBuilder.build(rollout, env, m, plan, false, kind), plan.indexOf(m), pins);
            if (names.contains(pod.getMetadata().getName())) {
                ServerSideApply.apply(client, pod);
            }
        }
    }

    /** A restored member runs on the node that holds its images (node-local snapshot storage). */
    private static Pod pinned(Pod pod, int index, Map<Integer, String> pins) {
        String node = pins.get(index);
        if (node != null) {
            Map<String, String> selector = new java.util.TreeMap<>(pod.getSpec().getNodeSelector() == null
                    ? Map.of() : pod.getSpec().getNodeSelector());
            selector.put("kubernetes.io/hostname", node);
            pod.getSpec().setNodeSelector(selector);
        }
        return pod;
    }

    /** Applies an object beside the pods; the same intent applied again changes nothing. */
    private static void applyBeside(KubernetesClient client, HasMetadata object) {
        try {
            ServerSideApply.apply(client, object);
        } catch (KubernetesClientException e) {
            // 404: the kind is not served (e.g. a gang scheduler removed since detection): the gate still works.
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    /**
     * Creates an object that must never change once made (the API token Secret): 409 means it exists
     * and is kept. Needs only the create verb, so the operator never reads a Secret.
     */
    private static void createOnce(KubernetesClient client, HasMetadata object) {
        try {
            client.resource(object).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    private void stopPods(Rollout rollout, Map<String, Pod> observed, KubernetesClient client) {
        for (Pod p : observed.values()) {
            if (RolloutStateMachine.stillRunning(p)) {
                try {
                    client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).delete();
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 404) {
                        throw e;
                    }
                }
            }
        }
    }

    private void recordTransition(Rollout rollout, RolloutPhase oldPhase, RolloutStatus old, RolloutStatus status,
                                  RolloutDecision d, KubernetesClient client) {
        if (status.timings != null && status.timings.createToPodsMillis != null
                && (old == null || old.timings == null || old.timings.createToPodsMillis == null)) {
            // No event here: one write per rollout on the hot path, and nothing a person acts on.
            metrics.createToPods(status.timings.createToPodsMillis);
        }
        if (status.timings != null && status.timings.createToRunningMillis != null
                && (old == null || old.timings == null || old.timings.createToRunningMillis == null)) {
            metrics.createToRunning(status.timings.createToRunningMillis);
        }
        if (oldPhase == d.phase() && Objects.equals(old == null ? null : old.reason, d.reason())) {
            return;
        }
        switch (d.phase()) {
            case Running, Succeeded -> events.of(client).normal(rollout, d.reason(), d.message());
            case Failed, Hacked, TimedOut -> events.of(client).warning(rollout, d.reason(), d.message());
            case Pending -> {
                if (Reasons.UNSCHEDULABLE.equals(d.reason()) || Reasons.ENVIRONMENT_NOT_FOUND.equals(d.reason())
                        || Reasons.POD_REJECTED.equals(d.reason())
                        || Reasons.ENVIRONMENT_INVALID.equals(d.reason())) {
                    events.of(client).warning(rollout, d.reason(), d.message());
                } else if (Reasons.GANG_RELEASED.equals(d.reason())) {
                    events.of(client).normal(rollout, d.reason(), d.message());
                }
            }
            default -> {
            }
        }
    }

    @Override
    public DeleteControl cleanup(Rollout rollout, Context<Rollout> context) {
        return dev.crucible.controllers.status.PermissionReporter.cleanup(rollout, context, events, r -> r.getStatus() == null ? null : r.getStatus().conditions,
                () -> cleanupObserved(rollout, context));
    }

    private DeleteControl cleanupObserved(Rollout rollout, Context<Rollout> context) {
        KubernetesClient client = context.getClient();
        String ns = rollout.getMetadata().getNamespace();
        String name = rollout.getMetadata().getName();
        // Owner references let the garbage collector do this too; deleting explicitly frees GPUs at once
        // and works where no garbage collector runs.
        client.pods().inNamespace(ns).withLabels(RolloutLabels.forRollout(name)).delete();
        quietly(() -> client.services().inNamespace(ns).withName(RolloutLabels.serviceName(name)).delete());
        quietly(() -> client.network().v1().networkPolicies().inNamespace(ns).withName(RolloutLabels.networkPolicyName(name)).delete());
        quietly(() -> client.configMaps().inNamespace(ns).withName(RolloutLabels.configMapName(name)).delete());
        if (Boolean.TRUE.equals(rollout.getSpec().deleteSnapshotsOnDelete)) {
            quietly(() -> client.resources(RolloutSnapshot.class).inNamespace(ns).list().getItems().stream()
                    .filter(s -> s.getSpec() != null && s.getSpec().rolloutRef != null && name.equals(s.getSpec().rolloutRef.name))
                    .forEach(s -> client.resource(s).delete()));
        }
        metrics.phase(ns + "/" + name, null);
        metrics.firstSight().forget(rollout);
        return DeleteControl.defaultDelete();
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }


    private GangSchedulerSupport.Kind gangKind(KubernetesClient client) {
        GangKindHolder holder = gangKind;
        if (holder == null) {
            holder = new GangKindHolder(GangSchedulerSupport.detect(client));
            gangKind = holder;
        }
        return holder.kind();
    }

    /** The environment's Valid condition: true, false, or null while not yet reconciled. */
    static Boolean validity(RLEnvironment env) {
        if (env.getStatus() == null) {
            return null;
        }
        var c = Conditions.find(env.getStatus().conditions, ConditionTypes.VALID);
        return c == null ? null : "True".equals(c.getStatus());
    }

    static String environmentKey(String namespace, String name) {
        return namespace + "/" + name;
    }
}
