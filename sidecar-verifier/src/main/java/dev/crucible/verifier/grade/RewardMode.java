package dev.crucible.verifier.grade;

/**
 * Turns an outcome class and a pass count into a reward. binary: 1 when everything required passed;
 * fraction: share passed; coderl: -1 / -0.6 / -0.3 / +1; weighted: the share passed (a composite
 * weights its components instead).
 */
public final class RewardMode {
    private RewardMode() {}

    public static double reward(String mode, Category category, int passed, int total) {
        double fraction = total == 0 ? 0.0 : (double) passed / total;
        return switch (mode) {
            case "coderl" -> category.codeRl;
            case "fraction", "weighted" -> category == Category.BUILD_FAILED ? 0.0 : fraction;
            default -> category == Category.PASSED ? 1.0 : 0.0;
        };
    }

    public static String verdict(Category category) { return category == Category.PASSED ? "pass" : "fail"; }
}
