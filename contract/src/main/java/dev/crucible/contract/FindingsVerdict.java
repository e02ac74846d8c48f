package dev.crucible.contract;

import java.util.List;

/**
 * The verdict/flag/floor rule: what counted findings (any severity but info, {@link FindingSeverity}) do to a result.
 * They floor {@code reward} under every policy action ({@link Reward#trainable}) while {@code testReward} stays the
 * tests' own score; one under the terminate action makes the verdict hacked, whatever grading said (an error too:
 * the phase is Hacked either way, {@link TerminalOutcome#of}); one under another action (flag, revert) flags the
 * result. One rule for an episode's report and for a rollout's, to which the findings of earlier episodes are added.
 */
public record FindingsVerdict(double reward, String verdict, boolean flagged) {
    /**
     * @param verdict     the verdict so far: grading's, or that of the report the findings are added to
     * @param flagged     whether the result is flagged so far
     * @param testReward  the tests' own score; null when there is none (grading did not run): {@code reward} then stays
     * @param reward      the reward so far
     * @param counted     the counted findings of the whole result, those it had and those judged now
     * @param hackActions the policy action of each counted finding judged now (null is not terminate)
     */
    public static FindingsVerdict judge(String verdict, boolean flagged, Double testReward, double reward, String rewardMode, int counted,
                                        List<String> hackActions) {
        String terminate = PolicyAction.TERMINATE.wire();
        boolean hacked = hackActions.stream().anyMatch(terminate::equals);
        boolean otherAction = hackActions.stream().anyMatch(a -> !terminate.equals(a));
        return new FindingsVerdict(testReward == null ? reward : Reward.trainable(testReward, counted, rewardMode),
                hacked ? Verdict.HACKED.wire() : verdict, flagged || otherAction);
    }
}
