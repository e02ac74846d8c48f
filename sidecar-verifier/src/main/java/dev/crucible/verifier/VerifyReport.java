package dev.crucible.verifier;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.crucible.verifier.grade.Outcome;
import dev.crucible.verifier.grade.TestCase;
import dev.crucible.verifier.grade.TestStatus;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.pristine.PristineSnapshot;
import java.util.List;
import java.util.Map;

/**
 * The answer of /v1/verify and {@code crucible verify}. {@code verdict}: pass, fail, error (grading
 * could not run) or hacked (a finding under the terminate policy floors the reward);
 * {@code flagged} is true when findings exist under the flag policy.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"environment", "reward", "verdict", "category", "reason", "flagged", "type", "rewardMode", "partialCredit", "tests",
        "details", "hackFindings", "tamper", "timings"})
public record VerifyReport(String environment, double reward, String verdict, String category, String reason, boolean flagged,
                           String type, String rewardMode, Double partialCredit, Tests tests, Map<String, Object> details,
                           List<Finding> hackFindings, Tamper tamper, Timings timings) {

    @JsonPropertyOrder({"passed", "failed", "skipped", "total", "details"})
    public record Tests(int passed, int failed, int skipped, int total, List<TestCase> details) {
        static Tests of(List<TestCase> cases, boolean skippedAsPassed) {
            int p = 0;
            int s = 0;
            for (TestCase t : cases) {
                if (t.status().counts(skippedAsPassed)) p++;
                else if (t.status() == TestStatus.SKIPPED || t.status() == TestStatus.XFAILED) s++;
            }
            return new Tests(p, cases.size() - p - s, s, cases.size(), cases);
        }
    }

    /** What the agent changed that grading ignored: protected files differing from pristine, files left out of the grading tree. */
    public record Tamper(List<PristineSnapshot.Change> protectedChanges, List<String> droppedFromGrading) {}

    public record Timings(long killAgentsMs, long prepareMs, long gradeMs, long totalMs) {}

    static VerifyReport of(String env, Outcome o, String rewardMode, boolean skippedAsPassed, List<Finding> findings,
                           String action, Tamper tamper, Timings timings) {
        double reward = o.reward();
        String verdict = o.verdict();
        boolean flagged = false;
        if (findings.stream().anyMatch(Finding::isHack)) { // info findings are recorded, never a hack
            if (action.equals("terminate")) {
                reward = rewardMode.equals("coderl") ? -1.0 : 0.0;
                verdict = "hacked";
            } else {
                flagged = true;
            }
        }
        return new VerifyReport(env, reward, verdict, o.category(), o.reason(), flagged, o.type(), rewardMode, o.partialCredit(),
                Tests.of(o.tests(), skippedAsPassed), o.details(), findings, tamper, timings);
    }

    static VerifyReport error(String env, String reason, List<Finding> findings, String rewardMode) {
        return new VerifyReport(env, rewardMode.equals("coderl") ? -1.0 : 0.0, "error", null, reason, findings.stream().anyMatch(Finding::isHack), null, rewardMode,
                null, new Tests(0, 0, 0, 0, List.of()), null, findings, null, null);
    }
}
