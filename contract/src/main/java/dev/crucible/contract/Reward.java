package dev.crucible.contract;

/**
 * What {@code reward} means: the score a trainer should train on. A counted finding floors it under every
 * hack policy action (flag, terminate, revert) — 0, or -1 in coderl reward mode — so a hack never pays.
 * The score from the tests alone is kept beside it as {@code testReward}. A rollout that ended TimedOut gets the floor too
 * ({@link #atEnd}).
 */
public final class Reward {
    private Reward() {}

    /** The floor of a reward mode as written: -1 for coderl, else 0 ({@link RewardMode#floor}). */
    public static double floor(String rewardMode) { return RewardMode.orDefault(rewardMode).floor(); }

    /** The reward to train on, from the tests' score and the number of counted findings. */
    public static double trainable(double testReward, int countedFindings, String rewardMode) {
        return countedFindings > 0 ? floor(rewardMode) : testReward;
    }

    /**
     * The reward a rollout that ended in {@code phase} reports, from its grade's {@code reward}. A TimedOut rollout did not
     * finish: the deadline stopped its agent mid-work, and the tree graded after that is whatever it had written by then (a
     * run that passed the tests and went on writing is not told apart from one cut off halfway). A trainer is not paid for
     * it: the floor, as for a hack; the tests' score stays in {@code testReward} and {@code verdict}, and grading still runs,
     * so a counted finding makes it Hacked. Every other phase reports the grade's reward as it is.
     */
    public static double atEnd(PhaseName phase, double reward, String rewardMode) {
        return phase == PhaseName.TimedOut ? floor(rewardMode) : reward;
    }
}
