package dev.crucible.verifier.grade;

import dev.crucible.contract.RewardMode;
import dev.crucible.contract.Verdict;

/**
 * Turns an outcome class and a pass count into a reward under a {@link RewardMode}. binary: 1 when everything required
 * passed; fraction: share passed; coderl: -1 / -0.6 / -0.3 / +1; weighted: the share passed (a composite weights its
 * components instead).
 */
public final class RewardFormula {
    private RewardFormula() {}

    public static double reward(RewardMode mode, Category category, int passed, int total) {
        double fraction = total == 0 ? 0.0 : (double) passed / total;
        return switch (mode) {
            case CODERL -> category.codeRl;
            case FRACTION, WEIGHTED -> category == Category.BUILD_FAILED ? 0.0 : fraction;
            case BINARY -> category == Category.PASSED ? 1.0 : 0.0;
        };
    }

    public static String verdict(Category category) { return verdict(category == Category.PASSED); }

    /** The verdict as written: pass when {@code passed}, else fail. */
    public static String verdict(boolean passed) { return (passed ? Verdict.PASS : Verdict.FAIL).wire(); }
}
