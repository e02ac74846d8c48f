package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.OnHack;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.snapshot.SnapshotSchedule;
import dev.crucible.controllers.status.EventRecorder;
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
        SnapshotSchedule.Plan plan = SnapshotSchedule.plan(current, mine, Instant.now());
        if (plan.create() != null) {
            ServerSideApply.apply(client, plan.create(), ServerSideApply.POLICY_FIELD_MANAGER);
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
                ServerSideApply.apply(client, HackResponse.hackSnapshot(rollout), ServerSideApply.POLICY_FIELD_MANAGER);
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
                ServerSideApply.apply(client, branch, ServerSideApply.POLICY_FIELD_MANAGER);
                events.of(client).normal(rollout, "Reverted", "started Rollout " + branch.getMetadata().getName()
                        + " from snapshot " + last + " (the last good state before the hack)");
                return d.withMessage(d.message() + "; reverted: Rollout " + branch.getMetadata().getName()
                        + " continues from snapshot " + last);
            }
        }
        return d;
    }

    /** Every snapshot of the rollout (periodic, on-hack, or a person's), from the informer. */
    private List<RolloutSnapshot> snapshotsOf(Rollout rollout) {
        String name = rollout.getMetadata().getName();
        return snapshots.get().list(rollout.getMetadata().getNamespace(), s -> s.getSpec() != null && s.getSpec().rolloutRef != null
                && name.equals(s.getSpec().rolloutRef.name)).toList();
    }
}
