package dev.crucible.cli.run;

import dev.crucible.contract.TerminalOutcome;
import dev.crucible.contract.PhaseName;
import dev.crucible.contract.OutcomeFacts;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.util.List;

/**
 * What a local attempt observed that decides how it ended, and {@link #decide}, the one step from it to a
 * terminal phase. It is public so the parity test in e2e can feed it the same facts as the operator's
 * state machine; the order itself is the contract's ({@link TerminalOutcome#of}), never decided here.
 *
 * @param interrupted   stopped by Ctrl-C before grading
 * @param setupError    why provisioning or the setup script failed, or null
 * @param timedOut      the rollout's deadline passed (during setup, while the agent ran, or while serving)
 * @param limitExceeded which resource limit the sandbox saw ended the run, or null
 * @param agentExit     the embedded agent's exit status, null when it was killed or the run is interactive
 * @param report        the verifier's report, null when grading did not run
 * @param liveFindings  the live monitor's findings, what counts when there is no report
 * @param refusal       why the run was refused before its agent started (no sandbox could be made), or null
 */
public record AttemptOutcome(boolean interrupted, String setupError, boolean timedOut, String limitExceeded, Integer agentExit,
                             VerifyReport report, List<Finding> liveFindings, String refusal) {

    /** An attempt that was not refused. */
    public AttemptOutcome(boolean interrupted, String setupError, boolean timedOut, String limitExceeded, Integer agentExit,
                          VerifyReport report, List<Finding> liveFindings) {
        this(interrupted, setupError, timedOut, limitExceeded, agentExit, report, liveFindings, null);
    }

    /** The findings result.json reports: the report's (every episode's, floored into the reward), else the live monitor's. */
    public List<Finding> findings() {
        return report != null ? report.hackFindings() : liveFindings == null ? List.of() : liveFindings;
    }

    /** The terminal phase, in the contract's order; {@code policyAction} and {@code deadlineSeconds} only shape the message. */
    public TerminalOutcome decide(String policyAction, long deadlineSeconds) {
        return TerminalOutcome.of(OutcomeFacts.none().withInterrupted(interrupted).withRefusal(refusal).withSetupError(setupError)
                .withFindings(VerifyReport.counted(findings()), policyAction)
                .withTimedOut(timedOut, deadlineSeconds).withLimitExceeded(limitExceeded != null, limitExceeded)
                .withGrade(report == null ? null : report.verdict(), report == null ? null : report.reason()).withAgentExit(agentExit));
    }
}
