package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutBuilder;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.OnHack;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.api.v1alpha1.snapshot.SnapshotTrigger;
import dev.crucible.controllers.snapshot.SnapshotSchedule;
import java.util.HashMap;
import java.util.Map;

/**
 * What {@code snapshotPolicy.onHack} asks for once a rollout is Hacked: {@code snapshot} keeps the
 * hacked state for inspection ({@code <rollout>-hack}, taken before the pods stop), {@code revert}
 * starts a branch {@code <rollout>-revert} from the last good snapshot. A revert of a revert is
 * allowed up to {@link #MAX_REVERTS} deep, so a policy cannot loop forever.
 */
public final class HackResponse {

    public static final String REVERTS_LABEL = "crucible.dev/reverts";
    static final int MAX_REVERTS = 3;

    private HackResponse() {
    }

    public static OnHack of(Rollout r) {
        var p = r.getSpec().snapshotPolicy;
        return p == null || p.onHack == null ? OnHack.NONE : p.onHack;
    }

    public static String hackSnapshotName(Rollout r) {
        return r.getMetadata().getName() + "-hack";
    }

    public static RolloutSnapshot hackSnapshot(Rollout r) {
        // The run is over: capture it and let it stop.
        return SnapshotSchedule.policySnapshot(r, hackSnapshotName(r), SnapshotTrigger.HACK, false);
    }

    /** The branch that continues from {@code snapshot}, or null when the revert depth is used up. */
    public static Rollout revertBranch(Rollout r, String snapshot) {
        Map<String, String> labels = r.getMetadata().getLabels() == null ? Map.of() : r.getMetadata().getLabels();
        int depth = Integer.parseInt(labels.getOrDefault(REVERTS_LABEL, "0"));
        if (depth >= MAX_REVERTS) {
            return null;
        }
        Map<String, String> branchLabels = new HashMap<>(labels);
        branchLabels.put(REVERTS_LABEL, Integer.toString(depth + 1));
        RolloutSpec from = r.getSpec();
        return RolloutBuilder.named(r.getMetadata().getNamespace(), r.getMetadata().getName() + "-revert").labels(branchLabels)
                .ownedBy(OwnerReferences.controlledBy(r)).spec(spec -> {
                    spec.environmentRef = from.environmentRef;
                    spec.mode = from.mode;
                    spec.agent = from.agent;
                    spec.limits = from.limits;
                    spec.group = from.group;
                    spec.snapshotPolicy = from.snapshotPolicy;
                    // Not spec.patches (the snapshot's workspace already carries them): the revert's own, if any.
                    spec.patches = from.snapshotPolicy == null || from.snapshotPolicy.revertPatches == null
                            || from.snapshotPolicy.revertPatches.isEmpty() ? null : from.snapshotPolicy.revertPatches;
                    spec.placement = from.placement;
                    spec.deleteSnapshotsOnDelete = from.deleteSnapshotsOnDelete;
                }).restoreFrom(snapshot).build();
    }
}
