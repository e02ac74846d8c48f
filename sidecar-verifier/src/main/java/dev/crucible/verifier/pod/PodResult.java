package dev.crucible.verifier.pod;

import dev.crucible.contract.OutcomeFacts;
import dev.crucible.contract.PhaseName;
import dev.crucible.contract.TerminalOutcome;
import dev.crucible.contract.VerifierResultJson;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.util.List;

/**
 * The sidecar's result as the operator reads it from the container's termination message, in the
 * contract's {@link VerifierResultJson} (which fits it into Kubernetes' 4 KiB).
 */
public final class PodResult {

    public static final int MAX_BYTES = VerifierResultJson.MAX_BYTES;

    private PodResult() {
    }

    /** Succeeded, Failed, Hacked or TimedOut: {@link #outcome}'s phase. */
    public static String phase(VerifyReport report, boolean timedOut) {
        return outcome(report, timedOut, 0, null, null).phase().name();
    }

    /**
     * How the pod's rollout ended, by the contract's {@link TerminalOutcome#of} (the function the local
     * runtime and the operator use): a counted finding makes it Hacked even past the deadline.
     *
     * @param error why grading did not run (no report), or null
     */
    public static TerminalOutcome outcome(VerifyReport report, boolean timedOut, long deadlineSeconds, Integer agentExit, String error) {
        return outcome(report, List.of(), timedOut, deadlineSeconds, agentExit, error);
    }

    /**
     * As above, with the live monitor's findings ({@code live}): they count when grading left no report, as
     * they do for a local run (a report already carries every episode's findings).
     */
    public static TerminalOutcome outcome(VerifyReport report, List<Finding> live, boolean timedOut, long deadlineSeconds,
                                          Integer agentExit, String error) {
        return TerminalOutcome.of(facts(report, live, timedOut, deadlineSeconds, agentExit, error));
    }

    /** What the pod saw, as the contract's facts: the termination message carries them so the operator decides from them. */
    static OutcomeFacts facts(VerifyReport report, List<Finding> live, boolean timedOut, long deadlineSeconds, Integer agentExit, String error) {
        List<Finding> findings = findingsOf(report, live);
        OutcomeFacts f = VerifyReport.withFindings(OutcomeFacts.none().withTimedOut(timedOut, deadlineSeconds).withAgentExit(agentExit),
                report == null ? null : report.verdict(), findings);
        return report != null ? f.withGrade(report.verdict(), report.reason()) : f.withGrade(null, error);
    }

    /**
     * The termination message {@link PodSidecar} writes when the episode ends: the outcome of what the pod
     * saw, the report's rewards and tests, the findings; {@code error} (why grading did not run) as its message.
     */
    public static String terminationMessage(VerifyReport report, List<Finding> live, boolean timedOut, long deadlineSeconds,
                                            Integer agentExit, String error, int turns) {
        return terminationMessage(report, live, timedOut, deadlineSeconds, agentExit, error, turns, MAX_BYTES);
    }

    /** As above, at most {@code maxBytes}: the pod's share of the kubelet's termination-message budget. */
    public static String terminationMessage(VerifyReport report, List<Finding> live, boolean timedOut, long deadlineSeconds,
                                            Integer agentExit, String error, int turns, int maxBytes) {
        return terminationMessage(report, live, timedOut, deadlineSeconds, agentExit, error, turns, maxBytes, null);
    }

    /** As above, with what the sidecar kept of the trajectory ({@code trajectory}, or null when it recorded none). */
    public static String terminationMessage(VerifyReport report, List<Finding> live, boolean timedOut, long deadlineSeconds,
                                            Integer agentExit, String error, int turns, int maxBytes, VerifierResultJson.Trajectory trajectory) {
        OutcomeFacts facts = facts(report, live, timedOut, deadlineSeconds, agentExit, error);
        return toJson(report, live, TerminalOutcome.of(facts), turns, error, maxBytes, trajectory, VerifierResultJson.Facts.of(facts));
    }

    private static List<Finding> findingsOf(VerifyReport report, List<Finding> live) {
        List<Finding> f = report != null ? report.hackFindings() : live;
        return f == null ? List.of() : f;
    }


    public static String toJson(VerifyReport report, String phase, int turns, String message) {
        return toJson(report, new TerminalOutcome(PhaseName.valueOf(phase), null, null), turns, message);
    }

    /** The termination message ({@link VerifierResultJson#write}): the outcome's phase and reason, the report's rewards and findings; {@code message} or the outcome's. */
    public static String toJson(VerifyReport report, TerminalOutcome outcome, int turns, String message) {
        return toJson(report, List.of(), outcome, turns, message, MAX_BYTES, null, null);
    }

    private static String toJson(VerifyReport report, List<Finding> live, TerminalOutcome outcome, int turns, String message, int maxBytes,
                                 VerifierResultJson.Trajectory trajectory, VerifierResultJson.Facts facts) {
        String msg = message != null ? message : outcome.message();
        List<Finding> findings = findingsOf(report, live);
        // without a report, the live findings the outcome counted are still reported
        List<VerifierResultJson.Finding> out = report == null && findings.isEmpty() ? null : findings.stream()
                .map(f -> new VerifierResultJson.Finding(f.detector(), f.severity(), f.rule(), f.path(), f.evidence(), f.time(),
                        f.step(), f.action())).toList();
        if (report == null) {
            return VerifierResultJson.write(new VerifierResultJson.Result(outcome.phase(), outcome.reason(), turns, null, null,
                    null, null, VerifyReport.counted(findings), out, null, msg, null, null, trajectory, facts), maxBytes);
        }
        VerifierResultJson.Tests tests = report.tests() == null ? null : VerifierResultJson.Tests.of(report.tests().passed(),
                report.tests().failed(), report.tests().skipped(), report.tests().total());
        String integrity = report.details() != null && report.details().get("integrity") instanceof java.util.Map<?, ?> m
                && m.get("reward") instanceof String s ? s : null; // the isolated oracle's label (issue 33)
        if (tests != null && integrity != null) {
            tests = tests.withIsolated((int) report.tests().details().stream().filter(t -> "isolated".equals(t.integrity())).count());
        }
        return VerifierResultJson.write(new VerifierResultJson.Result(outcome.phase(), outcome.reason(), turns,
                dev.crucible.contract.Reward.atEnd(outcome.phase(), report.reward(), report.rewardMode()), // a timed-out run is not paid
                report.testReward(), report.verdict(), tests, VerifyReport.counted(findings), out, null, msg, null, integrity, trajectory, facts),
                maxBytes);
    }
}
