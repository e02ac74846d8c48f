package dev.crucible.verifier.api;

import dev.crucible.contract.FindingsVerdict;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A rollout's result (the pod's termination message, a local interactive run's result.json) answers for
 * the whole rollout, not only its last episode: findings of episodes a {@code /v1/reset} ended are added
 * to the last report, under the rule {@code VerifyReport.of} applies to one episode ({@link FindingsVerdict}):
 * a counted finding (any severity but info) floors {@code reward} under every policy action, the verdict is
 * "hacked" when one was found under the terminate action (after a grading error too), "flagged" when one was
 * found under another, and {@code testReward} stays the tests' own score.
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
        List<Finding> merged = new ArrayList<>(earlier);
        merged.addAll(last);
        // an error report has no tests' score (testReward null): its reward is already the floor and stays
        FindingsVerdict v = FindingsVerdict.judge(report.verdict(), report.flagged(), report.testReward(), report.reward(), report.rewardMode(),
                VerifyReport.counted(merged), earlier.stream().filter(Finding::isHack).map(Finding::action).toList());
        return new VerifyReport(report.environment(), v.reward(), report.testReward(), v.verdict(), report.category(), report.reason(),
                v.flagged(), report.type(), report.rewardMode(), report.partialCredit(), report.tests(), report.details(), merged,
                report.tamper(), report.timings());
    }
}
