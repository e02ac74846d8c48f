package dev.crucible.contract;

/**
 * What {@code reward} means: the score a trainer should train on. A counted finding floors it under every
 * hack policy action (flag, terminate, revert) — 0, or -1 in coderl reward mode — so a hack never pays.
 * The score from the tests alone is kept beside it as {@code testReward}.
 */
public final class Reward {
    private Reward() {}

    /** The floor of a reward mode as written: -1 for coderl, else 0 ({@link RewardMode#floor}). */
    public static double floor(String rewardMode) { return RewardMode.orDefault(rewardMode).floor(); }

    /** The reward to train on, from the tests' score and the number of counted findings. */
    public static double trainable(double testReward, int countedFindings, String rewardMode) {
        return countedFindings > 0 ? floor(rewardMode) : testReward;
    }
}
