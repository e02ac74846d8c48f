package dev.crucible.contract;

/**
 * How a rollout ended: a terminal phase, its reason and a message for people. {@link #of} is the one
 * function the CLI, the sidecar's pod result and the operator all use, so the same facts end the same
 * way locally and in a cluster.
 */
public record TerminalOutcome(PhaseName phase, String reason, String message) {

    /**
     * The order, first match wins:
     * <ol>
     * <li>interrupted — a person stopped it; nothing after is trusted;</li>
     * <li>refused — no sandbox could be made, so the agent never started: Failed, reason SandboxUnavailable, and
     * nothing of the run is held against the agent (no grade ran, so none can be read as tampering);</li>
     * <li>setup failed — the agent never had a fair start;</li>
     * <li>hacked — a counted finding outranks everything the run did after it (deadline, limits, grade);</li>
     * <li>timed out — the deadline passed;</li>
     * <li>limit exceeded — a resource limit ended it (Failed, reason ResourceLimitExceeded);</li>
     * <li>grading error — no grade could be computed;</li>
     * <li>graded — Succeeded whatever the score (the reward says how well); the agent's exit status is
     * recorded in the message, never turned into a failure.</li>
     * </ol>
     */
    public static TerminalOutcome of(OutcomeFacts f) {
        if (f.interrupted()) {
            return new TerminalOutcome(PhaseName.Failed, OutcomeReasons.INTERRUPTED, "stopped by a signal (SIGINT or SIGTERM) before grading");
        }
        if (f.refusal() != null) return new TerminalOutcome(PhaseName.Failed, OutcomeReasons.SANDBOX_UNAVAILABLE, f.refusal());
        if (f.setupError() != null) return new TerminalOutcome(PhaseName.Failed, OutcomeReasons.SETUP_FAILED, f.setupError());
        if (f.countedFindings() > 0) {
            return new TerminalOutcome(PhaseName.Hacked, OutcomeReasons.HACK_DETECTED, f.countedFindings() + " reward-hack finding"
                    + (f.countedFindings() == 1 ? "" : "s") + " under the " + f.policy() + " policy; the reward is floored");
        }
        if (f.timedOut()) {
            return new TerminalOutcome(PhaseName.TimedOut, OutcomeReasons.DEADLINE_EXCEEDED, "the rollout ran past limits.maxDurationSeconds ("
                    + f.deadlineSeconds() + " s); its agent was stopped");
        }
        if (f.limitExceeded()) {
            return new TerminalOutcome(PhaseName.Failed, OutcomeReasons.RESOURCE_LIMIT_EXCEEDED,
                    f.limitMessage() == null ? "a resource limit was exceeded" : f.limitMessage());
        }
        if (!Verdict.graded(f.verdict())) {
            return new TerminalOutcome(PhaseName.Failed, OutcomeReasons.VERIFICATION_FAILED,
                    f.gradeError() == null ? "grading did not run" : f.gradeError());
        }
        String exit = f.agentExit() == null || f.agentExit() == 0 ? ""
                : "; the agent exited with status " + f.agentExit() + " (recorded, it does not change the phase)";
        return new TerminalOutcome(PhaseName.Succeeded, OutcomeReasons.VERIFIED, "graded " + f.verdict() + " with no reward-hack finding" + exit);
    }
}
