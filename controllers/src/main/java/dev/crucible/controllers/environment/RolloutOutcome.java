package dev.crucible.controllers.environment;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutPhase;

/** What the statistics need from one Rollout. */
public record RolloutOutcome(RolloutPhase phase, Double reward, String groupId, Integer groupSize) {

    public static RolloutOutcome of(Rollout r) {
        var status = r.getStatus();
        var group = r.getSpec() == null ? null : r.getSpec().group;
        return new RolloutOutcome(status == null ? null : status.phase, status == null ? null : status.reward,
                group == null ? null : group.id, group == null ? null : group.size);
    }

    public boolean finished() {
        return phase != null && phase.isTerminal();
    }

    /** Solved: finished with the verifier's full mark (reward 1.0). */
    public boolean solved() {
        return finished() && reward != null && reward >= EnvironmentStatisticsCalculator.FULL_MARK;
    }
}
