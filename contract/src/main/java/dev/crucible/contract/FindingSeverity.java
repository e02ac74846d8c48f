package dev.crucible.contract;

import java.util.Collection;

/**
 * Which findings count. Severity "info" (below low) is recorded with its evidence but never counts as
 * a hack: it triggers no policy action, never makes a rollout Hacked and never lowers the reward.
 */
public final class FindingSeverity {
    public static final String INFO = "info";

    private FindingSeverity() {}

    /** True for low, medium, high, critical (and any unknown severity: an unreadable one is not waved through). */
    public static boolean counts(String severity) { return !INFO.equals(severity); }

    /** How many of these severities count. */
    public static int counted(Collection<String> severities) {
        return (int) severities.stream().filter(FindingSeverity::counts).count();
    }
}
