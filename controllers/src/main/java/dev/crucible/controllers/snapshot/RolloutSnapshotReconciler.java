package dev.crucible.controllers.snapshot;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.api.v1alpha1.rollout.SnapshotInclude;
import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotSpec;
import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotStatus;
import dev.crucible.api.v1alpha1.snapshot.SnapshotMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.api.v1alpha1.snapshot.SnapshotTrigger;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.status.Conditions;
import dev.crucible.controllers.status.EventRecorder;
import dev.crucible.controllers.status.PermissionReporter;
import dev.crucible.controllers.status.StatusWriter;
import dev.crucible.snapshot.client.SnapshotAgentClient;
import dev.crucible.snapshot.client.TwoPhaseSnapshot;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Takes a consistent snapshot of every member of a running Rollout: prepare (freeze all) → dump all
 * in parallel → commit all (thaw, or stop), through each member node's snapshot agent
 * ({@link TwoPhaseSnapshot}). Any failure or timeout aborts every member, so all are thawed, and the
 * snapshot is Failed with the reason.
 *
 * <p>The protocol runs inside one reconcile (seconds; bounded by {@code spec.timeoutSeconds}), after
 * status has recorded Preparing with every member's agent-side id. A reconcile that finds a
 * snapshot in progress that this process is not running means the operator died mid-protocol: it
 * aborts every recorded member (thaw) and marks the snapshot Failed, so nothing stays frozen.
 */
@ControllerConfiguration(name = RolloutSnapshotReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER)
@GradualRetry(maxAttempts = 5, initialInterval = 1000, intervalMultiplier = 2.0, maxInterval = 30_000)
public class RolloutSnapshotReconciler implements Reconciler<RolloutSnapshot>, Cleaner<RolloutSnapshot> {

    public static final String NAME = "rolloutsnapshot";
    /** Where its conditions are (the status may not exist yet), for the error and permission reports. */
    private static final Function<RolloutSnapshot, List<Condition>> CONDITIONS = r -> r.getStatus() == null ? null : r.getStatus().conditions;
    static final Duration WAIT_FOR_ROLLOUT = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(RolloutSnapshotReconciler.class);

    private final SnapshotAgents agents;
    private final ControllerMetrics metrics;
    /** Final statuses this process wrote: a stale cache that still says Preparing is not a crash. */
    private final Map<String, RolloutSnapshotStatus> finished = new ConcurrentHashMap<>();
    private final EventRecorder.Lazy events = new EventRecorder.Lazy();

    public RolloutSnapshotReconciler(SnapshotAgents agents, ControllerMetrics metrics) {
        this.agents = agents;
        this.metrics = metrics;
    }

    /** A failed reconcile as a ReconcileError condition and Event (StatusWriter.errorStatus); the SDK retries. */
    @Override
    public ErrorStatusUpdateControl<RolloutSnapshot> updateErrorStatus(RolloutSnapshot resource, Context<RolloutSnapshot> context, Exception e) {
        return StatusWriter.errorStatus(resource, context, e, events, CONDITIONS);
    }

    @Override
    public UpdateControl<RolloutSnapshot> reconcile(RolloutSnapshot snapshot, Context<RolloutSnapshot> context) {
        return PermissionReporter.reconcile(snapshot, context, events, CONDITIONS,
                () -> metrics.timeReconcile(NAME, () -> reconcileObserved(snapshot, context)));
    }

    private UpdateControl<RolloutSnapshot> reconcileObserved(RolloutSnapshot snapshot, Context<RolloutSnapshot> context) {
        RolloutSnapshotStatus status = snapshot.getStatus();
        SnapshotPhase phase = status == null ? null : status.phase;
        Instant now = Instant.now();
        if (phase == SnapshotPhase.Ready) {
            return expireWhenDue(snapshot, context, now);
        }
        if (phase == SnapshotPhase.Failed || phase == SnapshotPhase.Expired) {
            return UpdateControl.noUpdate();
        }
        if (phase == SnapshotPhase.Preparing || phase == SnapshotPhase.Dumping || phase == SnapshotPhase.Committing) {
            RolloutSnapshotStatus done = finished.get(snapshot.getMetadata().getUid());
            if (done != null) {
                write(snapshot, done, context);
                return UpdateControl.noUpdate();
            }
            abortAll(status.members, "the operator restarted during the snapshot");
            fail(snapshot, context, status.members, "OperatorRestarted",
                    "the operator stopped while the snapshot was in phase " + phase + "; every member was thawed");
            return UpdateControl.noUpdate();
        }
        return start(snapshot, context, now);
    }

    private UpdateControl<RolloutSnapshot> start(RolloutSnapshot snapshot, Context<RolloutSnapshot> context, Instant now) {
        KubernetesClient client = context.getClient();
        RolloutSnapshotSpec spec = snapshot.getSpec();
        String ns = snapshot.getMetadata().getNamespace();
        String rolloutName = spec.rolloutRef.name;
        Rollout rollout = client.resources(Rollout.class).inNamespace(ns).withName(rolloutName).get();
        if (rollout == null) {
            return fail(snapshot, context, null, "RolloutNotFound", "spec.rolloutRef.name: Rollout " + rolloutName
                    + " does not exist in namespace " + ns);
        }
        PhaseName rp = rollout.getStatus() == null ? null : rollout.getStatus().phase;
        // A hack snapshot captures a Hacked rollout, whose pods the Rollout controller holds until it is taken.
        boolean hackOfHacked = spec.trigger == SnapshotTrigger.HACK && rp == PhaseName.Hacked;
        if (rp != null && rp.isTerminal() && !hackOfHacked) {
            return fail(snapshot, context, null, "RolloutFinished", "Rollout " + rolloutName + " already ended ("
                    + rp + "); only a running rollout can be snapshotted");
        }
        SnapshotInclude include = spec.include;
        boolean diskOnly = include != null && Boolean.FALSE.equals(include.memory);
        if (rp != PhaseName.Running && !hackOfHacked) {
            Instant created = Instant.parse(snapshot.getMetadata().getCreationTimestamp());
            if (now.isAfter(created.plusSeconds(timeoutSeconds(spec)))) {
                return fail(snapshot, context, null, "RolloutNotRunning", "Rollout " + rolloutName + " did not reach Running within "
                        + "spec.timeoutSeconds (" + timeoutSeconds(spec) + "s); it is " + rp);
            }
            RolloutSnapshotStatus waiting = status(snapshot, SnapshotPhase.Pending, "WaitingForRollout",
                    "Rollout " + rolloutName + " is " + (rp == null ? "not yet reconciled" : rp) + "; the snapshot starts when it runs",
                    null, now);
            if (!sameProgress(snapshot.getStatus(), waiting)) {
                write(snapshot, waiting, context);
            }
            return UpdateControl.<RolloutSnapshot>noUpdate().rescheduleAfter(WAIT_FOR_ROLLOUT);
        }

        RLEnvironment env = rollout.getSpec().environmentRef == null ? null : client.resources(RLEnvironment.class)
                .inNamespace(ns).withName(rollout.getSpec().environmentRef.name).get();
        List<SnapshotMember> members = SnapshotPlan.members(snapshot, rollout, env);
        List<TwoPhaseSnapshot.Member> protocol = new ArrayList<>();
        try {
            for (SnapshotMember m : members) {
                Pod pod = client.pods().inNamespace(ns).withName(m.pod).get();
                if (pod == null || m.node == null) {
                    throw new SnapshotAgents.Unavailable("member pod " + m.pod + " is gone or not scheduled");
                }
                SnapshotAgentClient agent = agents.agentOn(m.node);
                m.userNamespace = Boolean.FALSE.equals(pod.getSpec().getHostUsers()) ? Boolean.TRUE : null;
                String workspace = include != null && Boolean.FALSE.equals(include.disk) ? null : agents.workspace(pod);
                SnapshotRequest request = new SnapshotRequest(SnapshotPlan.idOf(m.imageLocation), SnapshotPlan.group(snapshot),
                        agents.target(pod, m.container), null, Boolean.TRUE.equals(spec.tcpEstablished), false, workspace,
                        timeoutSeconds(spec) * 1000L, null, diskOnly ? Boolean.TRUE : null, diskOnly ? null : agents.runtime(pod, m.container));
                protocol.add(new TwoPhaseSnapshot.Member(m.pod + "/" + m.container, agent, request));
            }
        } catch (SnapshotAgents.Unavailable e) {
            return fail(snapshot, context, members, "AgentUnavailable", e.getMessage());
        }

        // Record every member's id before any agent is called: a crash from here on is recoverable.
        write(snapshot, status(snapshot, SnapshotPhase.Preparing, "Preparing", "freezing " + members.size() + " member(s)",
                members, now), context);
        CommitAction action = Boolean.FALSE.equals(spec.leaveRunning) ? CommitAction.STOP : CommitAction.THAW;
        try {
            TwoPhaseSnapshot.Result result = new TwoPhaseSnapshot(Duration.ofSeconds(timeoutSeconds(spec))).run(protocol, action);
            RolloutSnapshotStatus ready = SnapshotStatusBuilder.ready(snapshot, members, result, Instant.now());
            finished.put(snapshot.getMetadata().getUid(), ready);
            write(snapshot, ready, context);
            metrics.snapshot("ready", null, ready.freezeWindowMillis, ready.totalBytes);
            events.of(client).normal(snapshot, "SnapshotReady", ready.message);
            return expireWhenDue(snapshot, context, Instant.now());
        } catch (TwoPhaseSnapshot.Failed e) {
            return fail(snapshot, context, members, "SnapshotFailed", e.getMessage());
        }
    }

    /** Ready until {@code ttlSeconds} after the consistent point; then the images go and the phase is Expired. */
    private UpdateControl<RolloutSnapshot> expireWhenDue(RolloutSnapshot snapshot, Context<RolloutSnapshot> context, Instant now) {
        RolloutSnapshotStatus status = finished.getOrDefault(snapshot.getMetadata().getUid(), snapshot.getStatus());
        if (status.expiresAt == null) {
            return UpdateControl.noUpdate();
        }
        Instant expires = Instant.parse(status.expiresAt);
        if (now.isBefore(expires)) {
            return UpdateControl.<RolloutSnapshot>noUpdate().rescheduleAfter(Duration.between(now, expires).plusMillis(50));
        }
        deleteImages(status.members);
        RolloutSnapshotStatus expired = SnapshotStatusBuilder.copy(status);
        expired.phase = SnapshotPhase.Expired;
        expired.reason = "Expired";
        expired.message = "spec.ttlSeconds passed; the images were deleted";
        expired.conditions = Conditions.set(expired.conditions, ConditionTypes.READY, false, "Expired", expired.message,
                snapshot.getMetadata().getGeneration(), now);
        finished.put(snapshot.getMetadata().getUid(), expired);
        write(snapshot, expired, context);
        return UpdateControl.noUpdate();
    }

    private UpdateControl<RolloutSnapshot> fail(RolloutSnapshot snapshot, Context<RolloutSnapshot> context,
                                                List<SnapshotMember> members, String reason, String message) {
        RolloutSnapshotStatus failed = status(snapshot, SnapshotPhase.Failed, reason, message, members, Instant.now());
        finished.put(snapshot.getMetadata().getUid(), failed);
        write(snapshot, failed, context);
        metrics.snapshot("failed", reason, null, null);
        events.of(context.getClient()).warning(snapshot, reason, message);
        return UpdateControl.noUpdate();
    }

    @Override
    public DeleteControl cleanup(RolloutSnapshot snapshot, Context<RolloutSnapshot> context) {
        return PermissionReporter.cleanup(snapshot, context, events, CONDITIONS,
                () -> cleanupObserved(snapshot));
    }

    private DeleteControl cleanupObserved(RolloutSnapshot snapshot) {
        RolloutSnapshotStatus status = snapshot.getStatus();
        if (status != null && status.members != null && status.phase != SnapshotPhase.Expired) {
            if (status.phase != SnapshotPhase.Ready && status.phase != SnapshotPhase.Failed) {
                abortAll(status.members, "the RolloutSnapshot was deleted");
            }
            deleteImages(status.members);
        }
        finished.remove(snapshot.getMetadata().getUid());
        return DeleteControl.defaultDelete();
    }

    /** Best effort: an agent that is gone takes its images with it, or its own TTL collects them. */
    private void deleteImages(List<SnapshotMember> members) {
        onEachAgent(members, "delete", Level.INFO, (agent, id) -> agent.delete(id));
    }

    /** Not in progress there (404/409), or unreachable: the agent's freeze watchdog thaws it. */
    private void abortAll(List<SnapshotMember> members, String reason) {
        onEachAgent(members, "abort", Level.DEBUG, (agent, id) -> agent.abort(id, reason));
    }

    /** Calls each member's agent with the member's image id; a failure is logged, never thrown. */
    private void onEachAgent(List<SnapshotMember> members, String what, Level level,
                             java.util.function.BiConsumer<SnapshotAgentClient, String> call) {
        if (members == null) {
            return;
        }
        for (SnapshotMember m : members) {
            try {
                call.accept(agents.agentOn(m.node), SnapshotPlan.idOf(m.imageLocation));
            } catch (RuntimeException e) {
                LOG.atLevel(level).log(what + " of " + m.imageLocation + ": " + e.getMessage());
            }
        }
    }

    private static RolloutSnapshotStatus status(RolloutSnapshot snapshot, SnapshotPhase phase, String reason, String message,
                                                List<SnapshotMember> members, Instant now) {
        RolloutSnapshotStatus s = new RolloutSnapshotStatus();
        RolloutSnapshotStatus old = snapshot.getStatus();
        s.observedGeneration = snapshot.getMetadata().getGeneration();
        s.phase = phase;
        s.reason = reason;
        s.message = message;
        s.members = members;
        s.conditions = Conditions.set(old == null || old.conditions == null ? new ArrayList<>() : old.conditions,
                ConditionTypes.READY, false, reason, message, s.observedGeneration, now);
        return s;
    }

    private static boolean sameProgress(RolloutSnapshotStatus a, RolloutSnapshotStatus b) {
        return a != null && a.phase == b.phase && java.util.Objects.equals(a.reason, b.reason)
                && java.util.Objects.equals(a.message, b.message);
    }

    static int timeoutSeconds(RolloutSnapshotSpec spec) {
        return spec.timeoutSeconds == null ? 120 : spec.timeoutSeconds;
    }

    private static void write(RolloutSnapshot snapshot, RolloutSnapshotStatus status, Context<RolloutSnapshot> context) {
        dev.crucible.controllers.status.StatusWriter.write(snapshot, status, RolloutSnapshot::new, context);
    }

}
