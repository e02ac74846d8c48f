package dev.crucible.controllers.environment;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.rollout.Reasons;

/**
 * What the statistics need from one Rollout.
 *
 * @param nodeLost it ended because a member's node was lost ({@link Reasons#NODE_LOST}): the infrastructure's failure,
 *                 not an attempt, even when its agent had run
 */
public record RolloutOutcome(PhaseName phase, Double reward, String groupId, Integer groupSize, boolean agentRan, boolean nodeLost) {

    /** Before the agent-ran distinction: every rollout counts as having run its agent. */
    public RolloutOutcome(PhaseName phase, Double reward, String groupId, Integer groupSize) {
        this(phase, reward, groupId, groupSize, true);
    }

    public RolloutOutcome(PhaseName phase, Double reward, String groupId, Integer groupSize, boolean agentRan) {
        this(phase, reward, groupId, groupSize, agentRan, false);
    }

    public static RolloutOutcome of(Rollout r) {
        var status = r.getStatus();
        var group = r.getSpec() == null ? null : r.getSpec().group;
        // The agent ran once the pods were Running (runningAt), or a verdict exists at all.
        boolean ran = status != null && (status.reward != null || status.timings != null && status.timings.runningAt != null);
        return new RolloutOutcome(status == null ? null : status.phase, status == null ? null : status.reward,
                group == null ? null : group.id, group == null ? null : group.size, ran,
                status != null && status.phase == PhaseName.Failed && Reasons.NODE_LOST.equals(status.reason));
    }

    /** Finished as an attempt: terminal, its agent ran, and it was not cut short by a lost node. */
    public boolean finished() {
        return terminal() && agentRan && !nodeLost;
    }

    /** Terminal without its agent ever running, or ended by a lost node: an infrastructure failure, not an attempt. */
    public boolean infrastructureFailure() {
        return terminal() && (!agentRan || nodeLost);
    }

    private boolean terminal() {
        return phase != null && phase.isTerminal();
    }

    /** Solved: finished with the verifier's full mark (reward 1.0). */
    public boolean solved() {
        return finished() && reward != null && reward >= EnvironmentStatisticsCalculator.FULL_MARK;
    }
}
