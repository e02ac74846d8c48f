package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.capacity.GangFit;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * Everything one reconcile of a Rollout saw, read once before deciding: the state machine is a function of
 * this record alone, so the same observation always gives the same decision (a restarted operator too).
 *
 * @param environmentValid    the RLEnvironment's Valid condition (null: unknown)
 * @param pods                the rollout's pods by name
 * @param fit                 whether the gang (or a pod the scheduler called unschedulable) fits the nodes; null: not checked
 * @param restore             the restore gate of {@code spec.restoreFrom}; null: no restore
 * @param hackSnapshotPending an {@code onHack: snapshot} snapshot is still being taken
 * @param lostNodes           nodes that members of this rollout were on and that no longer exist ({@link NodeLoss})
 */
public record Observed(Rollout rollout, RLEnvironment environment, Boolean environmentValid, Map<String, Pod> pods,
                       GangFit.Result fit, RestoreGate.Result restore, boolean hackSnapshotPending, Instant now,
                       Set<String> lostNodes) {

    /** Nothing known of lost nodes. */
    public Observed(Rollout rollout, RLEnvironment environment, Boolean environmentValid, Map<String, Pod> pods,
                    GangFit.Result fit, RestoreGate.Result restore, boolean hackSnapshotPending, Instant now) {
        this(rollout, environment, environmentValid, pods, fit, restore, hackSnapshotPending, now, Set.of());
    }
}
