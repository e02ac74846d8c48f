package dev.crucible.verifier.api;

import dev.crucible.contract.Reward;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A rollout's result (the pod's termination message, a local interactive run's result.json) answers for the whole rollout, not only its last episode: findings of episodes a
 * {@code /v1/reset} ended are added to the last report, and one under the terminate policy still
 * floors the reward as it did when it was found. "info" findings are carried but never count.
 */
public final class RolloutFindings {
    private RolloutFindings() {}

    /** {@code all}: {@link EpisodeHolder#findings()}; returns {@code report} itself when nothing is missing from it. */
    public static VerifyReport withAll(VerifyReport report, List<Finding> all) {
        if (report == null || all.isEmpty()) return report;
        List<Finding> last = report.hackFindings() == null ? List.of() : report.hackFindings();
        Set<Finding> seen = new HashSet<>(last);
        List<Finding> earlier = all.stream().filter(f -> !seen.contains(f)).toList();
        if (earlier.isEmpty()) return report;
        List<Finding> hacks = earlier.stream().filter(Finding::isHack).toList();
        boolean terminate = hacks.stream().anyMatch(f -> "terminate".equals(f.action()));
        boolean hacked = terminate && !"error".equals(report.verdict());
        double reward = hacked ? Reward.floor(report.rewardMode()) : report.reward();
        List<Finding> merged = new java.util.ArrayList<>(earlier);
        merged.addAll(last);
        return new VerifyReport(report.environment(), reward, hacked ? "hacked" : report.verdict(), report.category(), report.reason(),
                report.flagged() || (!hacks.isEmpty() && !terminate), report.type(), report.rewardMode(), report.partialCredit(),
                report.tests(), report.details(), merged, report.tamper(), report.timings());
    }
}
