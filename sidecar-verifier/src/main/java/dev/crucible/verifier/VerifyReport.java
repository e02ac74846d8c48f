package dev.crucible.verifier;

import dev.crucible.contract.Verdict;
import dev.crucible.contract.PolicyAction;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.crucible.contract.OutcomeFacts;
import dev.crucible.contract.SpecDefaults;
import dev.crucible.contract.TerminalOutcome;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.crucible.contract.FindingSeverity;
import dev.crucible.contract.FindingsVerdict;
import dev.crucible.contract.Reward;
import dev.crucible.verifier.grade.Outcome;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.pristine.PristineSnapshot;
import java.util.List;
import java.util.Map;

/**
 * The answer of /v1/verify and {@code crucible verify}. {@code reward} is what a trainer trains on: a
 * counted finding (any severity but info, {@link FindingSeverity}) floors it under every policy action
 * (flag, terminate, revert); {@code testReward} is the score from the tests alone. {@code verdict}: pass,
 * fail, error (grading could not run) or hacked (a counted finding under the terminate policy);
 * {@code flagged} is true when counted findings exist under the flag or revert policy: the rule of
 * {@link FindingsVerdict}, which {@code RolloutFindings.withAll} applies too.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"environment", "phase", "phaseReason", "reward", "testReward", "verdict", "category", "reason", "flagged", "type", "rewardMode", "partialCredit", "tests",
        "details", "hackFindings", "tamper", "timings"})
public record VerifyReport(String environment, double reward, Double testReward, String verdict, String category, String reason, boolean flagged,
                           String type, String rewardMode, Double partialCredit, Tests tests, Map<String, Object> details,
                           List<Finding> hackFindings, Tamper tamper, Timings timings) {

    /** A report whose reward is the tests' own score (no finding floors it). */
    public VerifyReport(String environment, double reward, String verdict, String category, String reason, boolean flagged,
                        String type, String rewardMode, Double partialCredit, Tests tests, Map<String, Object> details,
                        List<Finding> hackFindings, Tamper tamper, Timings timings) {
        this(environment, reward, reward, verdict, category, reason, flagged, type, rewardMode, partialCredit, tests, details,
                hackFindings, tamper, timings);
    }

    /**
     * How an episode that ended with this report ends, by the contract's order ({@link TerminalOutcome#of}, as
     * result.json, the pod and the Rollout have it): the trainer verified, so no deadline or agent exit enters.
     */
    public TerminalOutcome outcome() {
        List<Finding> f = hackFindings == null ? List.of() : hackFindings;
        return TerminalOutcome.of(withFindings(OutcomeFacts.none(), verdict, f).withGrade(verdict, reason));
    }

    /**
     * The findings' part of an outcome, one rule for the trainer's answer and the pod's result: the counted
     * findings, and the action that ran (terminate when grading said hacked, else what the findings record).
     */
    public static OutcomeFacts withFindings(OutcomeFacts facts, String verdict, List<Finding> findings) {
        String action = Verdict.HACKED.wire().equals(verdict) ? PolicyAction.TERMINATE.wire() : actionOf(findings);
        return facts.withFindings(counted(findings), action);
    }

    /** The phase of {@link #outcome} in the answer, so a trainer need not read result.json for it. */
    @JsonProperty("phase")
    public String phase() { return outcome().phase().name(); }

    @JsonProperty("phaseReason")
    public String phaseReason() { return outcome().reason(); }

    /** The policy action that ran, as the findings record it (the first that names one; else the default). */
    public static String actionOf(List<Finding> findings) {
        return findings.stream().map(Finding::action).filter(a -> a != null).findFirst().orElse(SpecDefaults.HACK_POLICY_ACTION);
    }

    /** Findings that count as a hack (severity info never does). */
    public static int counted(List<Finding> findings) {
        return findings == null ? 0 : FindingSeverity.counted(findings.stream().map(Finding::severity).toList());
    }

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
    public record Tamper(List<PristineSnapshot.Change> protectedChanges, List<String> droppedFromGrading) {
        /** Entries kept of each list: 150,000 FIFOs made result.json 81 MB, past what the console reads (host round 8, cases 29, 30). */
        public static final int MAX_LISTED = 500;

        /** The lists cut at {@link #MAX_LISTED}, the last entry of droppedFromGrading saying how many were not listed. */
        public static Tamper of(List<PristineSnapshot.Change> changes, List<String> dropped) {
            if (changes == null) changes = List.of();
            if (dropped == null) dropped = List.of();
            List<String> d = new java.util.ArrayList<>(dropped.subList(0, Math.min(dropped.size(), MAX_LISTED)));
            if (dropped.size() > MAX_LISTED) d.add("(and " + (dropped.size() - MAX_LISTED) + " more left out of grading, not listed)");
            if (changes.size() > MAX_LISTED) d.add("(protectedChanges lists the first " + MAX_LISTED + " of " + changes.size() + ")");
            return new Tamper(List.copyOf(changes.subList(0, Math.min(changes.size(), MAX_LISTED))), List.copyOf(d));
        }
    }

    public record Timings(long killAgentsMs, long prepareMs, long gradeMs, long totalMs) {}

    static VerifyReport of(String env, Outcome o, String rewardMode, boolean skippedAsPassed, List<Finding> findings,
                           String action, Tamper tamper, Timings timings) {
        int counted = counted(findings);
        // every counted finding of the episode ran under the episode's policy action
        FindingsVerdict v = FindingsVerdict.judge(o.verdict(), false, o.reward(), o.reward(), rewardMode, counted,
                counted > 0 ? List.of(action) : List.of());
        return new VerifyReport(env, v.reward(), o.reward(), v.verdict(), o.category(), o.reason(), v.flagged(), o.type(), rewardMode,
                o.partialCredit(), Tests.of(o.tests(), skippedAsPassed), o.details(), findings, tamper, timings);
    }

    static VerifyReport error(String env, String reason, List<Finding> findings, String rewardMode) {
        return new VerifyReport(env, Reward.floor(rewardMode), null, "error", null, reason, counted(findings) > 0, null, rewardMode,
                null, new Tests(0, 0, 0, 0, List.of()), null, findings, null, null);
    }
}
