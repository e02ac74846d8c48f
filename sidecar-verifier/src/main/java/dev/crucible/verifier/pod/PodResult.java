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
        OutcomeFacts f = OutcomeFacts.none().withTimedOut(timedOut, deadlineSeconds).withAgentExit(agentExit);
        if (report != null) {
            f = f.withFindings(VerifyReport.counted(report.hackFindings()), policyOf(report))
                    .withGrade(report.verdict(), report.reason());
        } else {
            f = f.withGrade(null, error);
        }
        return TerminalOutcome.of(f);
    }

    /** The report says which action ran through its fields: terminate sets verdict hacked, flag/revert set flagged. */
    private static String policyOf(VerifyReport r) {
        if ("hacked".equals(r.verdict())) return "terminate";
        List<Finding> f = r.hackFindings() == null ? List.of() : r.hackFindings();
        return f.stream().map(Finding::action).filter(a -> a != null).findFirst().orElse("flag");
    }

    public static String toJson(VerifyReport report, String phase, int turns, String message) {
        return toJson(report, new TerminalOutcome(PhaseName.valueOf(phase), null, null), turns, message);
    }

    /** The termination message ({@link VerifierResultJson#write}): the outcome's phase and reason, the report's rewards and findings; {@code message} or the outcome's. */
    public static String toJson(VerifyReport report, TerminalOutcome outcome, int turns, String message) {
        String msg = message != null ? message : outcome.message();
        if (report == null) {
            return VerifierResultJson.write(new VerifierResultJson.Result(outcome.phase(), outcome.reason(), turns, null, null,
                    null, null, 0, null, null, msg, null));
        }
        List<Finding> findings = report.hackFindings() == null ? List.of() : report.hackFindings();
        VerifierResultJson.Tests tests = report.tests() == null ? null : VerifierResultJson.Tests.of(report.tests().passed(),
                report.tests().failed(), report.tests().skipped(), report.tests().total());
        List<VerifierResultJson.Finding> out = findings.stream().map(f -> new VerifierResultJson.Finding(f.detector(),
                f.severity(), f.rule(), f.path(), f.evidence(), f.time(), f.stepIndex(), f.action())).toList();
        return VerifierResultJson.write(new VerifierResultJson.Result(outcome.phase(), outcome.reason(), turns, report.reward(),
                report.testReward(), report.verdict(), tests, VerifyReport.counted(findings), out, null, msg, null));
    }
}
