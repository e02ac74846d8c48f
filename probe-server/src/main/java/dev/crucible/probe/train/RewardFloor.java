package dev.crucible.probe.train;

import dev.crucible.probe.reward.RewardComposition;
import java.util.Arrays;

/**
 * The invalid-task floor against what valid tasks actually earn. A floor above some valid tasks'
 * reward makes RL prefer invalid output to them; when no floor was given, training puts it below
 * every valid reward it saw (served head, corpus and policy rows): one logit below the lowest for
 * hard_gate, 0.05 below for soft_gate (probabilities).
 */
public record RewardFloor(RewardComposition reward, double minValidReward, double shareAtOrBelowFloor,
                          boolean chosen) {

    public static RewardFloor check(RewardComposition given, boolean choose, double[] validLogits) {
        double[] valid = Arrays.stream(validLogits).map(l -> given.reward(l, true)).toArray();
        double min = Arrays.stream(valid).min().orElse(Double.NaN);
        RewardComposition r = given;
        if (choose && !Double.isNaN(min)) {
            if (given instanceof RewardComposition.HardGate) {
                r = new RewardComposition.HardGate(Math.floor(min) - 1.0);
            } else if (given instanceof RewardComposition.SoftGate s) {
                r = new RewardComposition.SoftGate(Math.min(s.invalidFloor(), Math.floor((min - 0.05) * 100) / 100),
                        s.clipLow(), s.clipHigh());
            }
        }
        double floor = r.reward(0, false);
        double share = r instanceof RewardComposition.ProbeOnly || valid.length == 0 ? 0
                : (double) Arrays.stream(valid).filter(v -> v <= floor).count() / valid.length;
        return new RewardFloor(r, min, share, choose && r != given);
    }

    /** One line for the report and the CLI, or null when the floor is below every valid reward. */
    public String warning() {
        if (shareAtOrBelowFloor == 0) {
            return null;
        }
        return String.format(java.util.Locale.ROOT, "invalid-task floor %.3f is at or above the reward of %.1f%% "
                        + "of valid tasks (lowest valid reward %.3f): RL would prefer invalid output to them; "
                        + "set --invalid-floor below %.3f or leave it unset to have one chosen",
                reward.reward(0, false), 100 * shareAtOrBelowFloor, minValidReward, minValidReward);
    }
}
