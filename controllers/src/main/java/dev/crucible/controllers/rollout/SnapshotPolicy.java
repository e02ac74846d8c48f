package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.OnHack;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.snapshot.SnapshotSchedule;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.controllers.status.ApiErrors;
import dev.crucible.controllers.status.Conditions;
import dev.crucible.controllers.status.EventRecorder;
import dev.crucible.controllers.status.PermissionDenied;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * A rollout's snapshots: the periodic policy ({@code spec.snapshots}: take what is due, prune beyond
 * {@code keep}, report the newest Ready one) and the response to a hack ({@code onHack: snapshot}
 * holds the pods until {@code <rollout>-hack} is taken; {@code onHack: revert} starts
 * {@code <rollout>-revert} from the newest Ready snapshot, once).
 */
final class SnapshotPolicy {
    private final Supplier<InformerEventSource<RolloutSnapshot, Rollout>> snapshots;
    private final EventRecorder.Lazy events;
    /** When a refused periodic snapshot is tried again (a webhook back, a quota raised). */
    static final Duration REFUSED_RETRY = Duration.ofSeconds(30);

    SnapshotPolicy(Supplier<InformerEventSource<RolloutSnapshot, Rollout>> snapshots, EventRecorder.Lazy events) {
        this.snapshots = snapshots;
        this.events = events;
    }

    /**
     * Creates the periodic snapshot that is due, prunes beyond {@code keep}, and reports the newest
     * Ready snapshot in {@code status.lastSnapshot}.
     */
    SnapshotSchedule.Plan schedule(Rollout rollout, RolloutStatus status, KubernetesClient client) {
        String ns = rollout.getMetadata().getNamespace();
        List<RolloutSnapshot> mine = snapshotsOf(rollout);
        status.lastSnapshot = SnapshotSchedule.lastReady(mine);
        Rollout current = new Rollout();
        current.setMetadata(rollout.getMetadata());
        current.setSpec(rollout.getSpec());
        current.setStatus(status);
        Instant now = Instant.now();
        SnapshotSchedule.Plan plan = SnapshotSchedule.plan(current, mine, now);
        if (plan.create() != null) {
            String refused = create(client, plan.create());
            if (refused != null) {
                // Said on the Rollout and retried; the rest of the reconcile (its status, its pods) goes on. Nothing is
                // pruned: keep counts the snapshot that was not made, and the newest good one must stay.
                degraded(rollout, status, client, "periodic snapshot " + plan.create().getMetadata().getName()
                        + " could not be created: " + refused + "; retried in " + REFUSED_RETRY.toSeconds() + " s", now);
                return new SnapshotSchedule.Plan(null, List.of(), REFUSED_RETRY);
            }
            recovered(status, rollout, now);
        } else if (rollout.getSpec().snapshotPolicy == null) {
            recovered(status, rollout, now);
        }
        for (String old : plan.delete()) {
            Quietly.ignoreNotFound(() -> client.resources(RolloutSnapshot.class).inNamespace(ns).withName(old).delete());
        }
        return plan;
    }

    /**
     * Whether a Hacked rollout waits for its hack snapshot ({@code onHack: snapshot}) before its pods stop: an
     * input of the state machine, read from the informer.
     */
    boolean hackSnapshotPending(Rollout rollout) {
        if (HackResponse.of(rollout) != OnHack.SNAPSHOT) {
            return false;
        }
        RolloutSnapshot hack = snapshots.get().get(new ResourceID(HackResponse.hackSnapshotName(rollout),
                rollout.getMetadata().getNamespace())).orElse(null);
        SnapshotPhase phase = hack == null || hack.getStatus() == null ? null : hack.getStatus().phase;
        return phase != SnapshotPhase.Ready && phase != SnapshotPhase.Failed && phase != SnapshotPhase.Expired;
    }

    /**
     * What {@code spec.onHack} does once the state machine said Hacked: take the hack snapshot (the decision
     * already holds the pods for it), or start the revert branch, which the message then names.
     */
    RolloutDecision respondToHack(Rollout rollout, RolloutDecision d, PhaseName oldPhase, KubernetesClient client) {
        String ns = rollout.getMetadata().getNamespace();
        if (HackResponse.of(rollout) == OnHack.SNAPSHOT) {
            if (snapshots.get().get(new ResourceID(HackResponse.hackSnapshotName(rollout), ns)).isEmpty()) {
                String refused = create(client, HackResponse.hackSnapshot(rollout));
                if (refused != null) { // the pods stay held for it (hackSnapshotPending) and the next reconcile tries again
                    events.of(client).warning(rollout, Reasons.SNAPSHOT_REFUSED, "onHack: snapshot, but it could not be created: " + refused);
                    return d.withMessage(d.message() + "; hack snapshot could not be created: " + refused);
                }
            }
            return d;
        }
        if (oldPhase != PhaseName.Hacked) {
            String last = SnapshotSchedule.lastReady(snapshotsOf(rollout));
            Rollout branch = last == null ? null : HackResponse.revertBranch(rollout, last);
            if (branch == null) {
                events.of(client).warning(rollout, "RevertSkipped", last == null ? "onHack: revert, but no Ready snapshot to revert to"
                        : "onHack: revert, but this rollout is already " + HackResponse.MAX_REVERTS + " reverts deep");
            } else {
                String refused = create(client, branch);
                if (refused != null) {
                    events.of(client).warning(rollout, Reasons.SNAPSHOT_REFUSED, "onHack: revert, but Rollout "
                            + branch.getMetadata().getName() + " could not be created: " + refused);
                    return d.withMessage(d.message() + "; revert branch could not be created: " + refused);
                }
                events.of(client).normal(rollout, "Reverted", "started Rollout " + branch.getMetadata().getName()
                        + " from snapshot " + last + " (the last good state before the hack)");
                return d.withMessage(d.message() + "; reverted: Rollout " + branch.getMetadata().getName()
                        + " continues from snapshot " + last);
            }
        }
        return d;
    }

    /**
     * Creates {@code object}; a refusal by admission or a quota comes back as its message (an RBAC refusal is still
     * thrown, for PermissionReporter's condition). Before, a refusal threw out of the reconcile before the status
     * write: with a webhook down, a Running Rollout with a snapshot due said nothing for minutes.
     */
    private static String create(KubernetesClient client, io.fabric8.kubernetes.api.model.HasMetadata object) {
        try {
            ServerSideApply.apply(client, object, ServerSideApply.POLICY_FIELD_MANAGER);
            return null;
        } catch (KubernetesClientException e) {
            if (PermissionDenied.of(e).isPresent()) {
                throw e;
            }
            String m = ApiErrors.message(e);
            return m == null ? "HTTP " + e.getCode() : (m.length() > 300 ? m.substring(0, 300) + "…" : m);
        }
    }

    private void degraded(Rollout rollout, RolloutStatus status, KubernetesClient client, String message, Instant now) {
        Condition c = Conditions.find(status.conditions, ConditionTypes.DEGRADED);
        if (c == null || !"True".equals(c.getStatus()) || !message.equals(c.getMessage())) {
            events.of(client).warning(rollout, Reasons.SNAPSHOT_REFUSED, message);
        }
        status.conditions = Conditions.set(status.conditions, ConditionTypes.DEGRADED, true, Reasons.SNAPSHOT_REFUSED, message,
                rollout.getMetadata().getGeneration(), now);
    }

    /** Degraded back to False once a snapshot is created again (or the policy is gone). */
    private static void recovered(RolloutStatus status, Rollout rollout, Instant now) {
        Condition c = Conditions.find(status.conditions, ConditionTypes.DEGRADED);
        if (c != null && "True".equals(c.getStatus()) && Reasons.SNAPSHOT_REFUSED.equals(c.getReason())) {
            status.conditions = Conditions.set(status.conditions, ConditionTypes.DEGRADED, false, Reasons.SNAPSHOTS_CREATED,
                    "snapshots are created again", rollout.getMetadata().getGeneration(), now);
        }
    }

    /** Every snapshot of the rollout (periodic, on-hack, or a person's), from the informer. */
    private List<RolloutSnapshot> snapshotsOf(Rollout rollout) {
        String name = rollout.getMetadata().getName();
        return snapshots.get().list(rollout.getMetadata().getNamespace(), s -> s.getSpec() != null && s.getSpec().rolloutRef != null
                && name.equals(s.getSpec().rolloutRef.name)).toList();
    }
}
