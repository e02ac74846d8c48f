package dev.crucible.contract;

/**
 * What happened in a rollout, as {@link TerminalOutcome#of} needs it. Each runtime fills in what it
 * knows (the CLI all of it; the sidecar what its pod saw; the operator adds its own deadline) through
 * the {@code with…} methods, so a fact added later does not break the others.
 *
 * @param interrupted     stopped by a signal (SIGINT, SIGTERM) before grading
 * @param setupError      why the setup script failed, or null
 * @param countedFindings findings that count ({@link FindingSeverity#counts}), under any policy action
 * @param policy          the hack policy's action (flag, terminate, revert), for the message
 * @param timedOut        the rollout's deadline ({@code limits.maxDurationSeconds}) passed
 * @param deadlineSeconds that deadline, for the message
 * @param limitExceeded   a resource limit (memory, processes, CPU time, disk) ended the run
 * @param limitMessage    which limit, for the message
 * @param verdict         the verifier's verdict (pass, fail, partial, hacked, error) or null when it did not grade
 * @param gradeError      why grading failed, when the verdict is error or missing
 * @param agentExit       the embedded agent's exit status, or null (killed, interactive, unknown)
 * @param refusal         why the run was refused before its agent started (no sandbox could be made), or null
 */
public record OutcomeFacts(boolean interrupted, String setupError, int countedFindings, String policy, boolean timedOut,
                           long deadlineSeconds, boolean limitExceeded, String limitMessage, String verdict, String gradeError,
                           Integer agentExit, String refusal) {

    /** Nothing happened yet: no grade, no finding. */
    public static OutcomeFacts none() {
        return new OutcomeFacts(false, null, 0, SpecDefaults.HACK_POLICY_ACTION, false, 0, false, null, null, null, null, null);
    }

    public OutcomeFacts withInterrupted(boolean v) {
        return new OutcomeFacts(v, setupError, countedFindings, policy, timedOut, deadlineSeconds, limitExceeded, limitMessage, verdict, gradeError, agentExit, refusal);
    }

    public OutcomeFacts withSetupError(String v) {
        return new OutcomeFacts(interrupted, v, countedFindings, policy, timedOut, deadlineSeconds, limitExceeded, limitMessage, verdict, gradeError, agentExit, refusal);
    }

    public OutcomeFacts withFindings(int counted, String policyAction) {
        return new OutcomeFacts(interrupted, setupError, counted, policyAction, timedOut, deadlineSeconds, limitExceeded, limitMessage, verdict, gradeError, agentExit, refusal);
    }

    public OutcomeFacts withTimedOut(boolean v, long deadline) {
        return new OutcomeFacts(interrupted, setupError, countedFindings, policy, v, deadline, limitExceeded, limitMessage, verdict, gradeError, agentExit, refusal);
    }

    public OutcomeFacts withLimitExceeded(boolean v, String message) {
        return new OutcomeFacts(interrupted, setupError, countedFindings, policy, timedOut, deadlineSeconds, v, message, verdict, gradeError, agentExit, refusal);
    }

    public OutcomeFacts withGrade(String v, String error) {
        return new OutcomeFacts(interrupted, setupError, countedFindings, policy, timedOut, deadlineSeconds, limitExceeded, limitMessage, v, error, agentExit, refusal);
    }

    public OutcomeFacts withAgentExit(Integer v) {
        return new OutcomeFacts(interrupted, setupError, countedFindings, policy, timedOut, deadlineSeconds, limitExceeded, limitMessage, verdict, gradeError, v, refusal);
    }

    public OutcomeFacts withRefusal(String v) {
        return new OutcomeFacts(interrupted, setupError, countedFindings, policy, timedOut, deadlineSeconds, limitExceeded, limitMessage, verdict, gradeError, agentExit, v);
    }
}
