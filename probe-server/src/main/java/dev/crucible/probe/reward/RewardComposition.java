package dev.crucible.probe.reward;

import java.util.Locale;

/**
 * How a probe logit and the cheap validity check become the RL reward (PROPEL section 3.3).
 * <ul>
 *   <li>hard_gate: invalid → a fixed floor; valid → the raw logit (main recipe, eq. 3).</li>
 *   <li>soft_gate: invalid → the floor; valid → the probability clipped to [clipLow, clipHigh].</li>
 *   <li>probe_only: the raw logit, validity ignored (ablation).</li>
 * </ul>
 */
public sealed interface RewardComposition {

    double reward(double logit, boolean valid);

    String type();

    record HardGate(double invalidFloor) implements RewardComposition {
        public double reward(double logit, boolean valid) {
            return valid ? logit : invalidFloor;
        }
        public String type() { return "hard_gate"; }
    }

    record SoftGate(double invalidFloor, double clipLow, double clipHigh) implements RewardComposition {
        public SoftGate {
            if (!(clipLow <= clipHigh) || clipLow < 0 || clipHigh > 1) {
                throw new IllegalArgumentException("soft_gate needs 0 <= clipLow <= clipHigh <= 1");
            }
        }
        public double reward(double logit, boolean valid) {
            if (!valid) {
                return invalidFloor;
            }
            double p = dev.crucible.probe.head.ProbeHead.sigmoid(logit);
            return Math.min(clipHigh, Math.max(clipLow, p));
        }
        public String type() { return "soft_gate"; }
    }

    record ProbeOnly() implements RewardComposition {
        public double reward(double logit, boolean valid) {
            return logit;
        }
        public String type() { return "probe_only"; }
    }

    /**
     * Builds a composition from its type name and parameters. Default floors sit below what a valid
     * task can get in practice: -5 for raw logits (hard_gate), 0 for clipped probabilities
     * (soft_gate, default clip [0.05, 0.95]).
     */
    static RewardComposition of(String type, Double invalidFloor, Double clipLow, Double clipHigh) {
        String t = type == null ? "hard_gate" : type.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        return switch (t) {
            case "hard_gate" -> new HardGate(invalidFloor == null ? -5.0 : invalidFloor);
            case "soft_gate" -> new SoftGate(invalidFloor == null ? 0.0 : invalidFloor, clipLow == null ? 0.05 : clipLow,
                    clipHigh == null ? 0.95 : clipHigh);
            case "probe_only" -> new ProbeOnly();
            default -> throw new IllegalArgumentException("unknown reward composition '" + type
                    + "'; expected hard_gate, soft_gate or probe_only");
        };
    }
}
