package dev.crucible.cli.run;

/**
 * The operator's Rollout phases, run locally. Kept here rather than reusing the API enum so
 * {@link #terminal} can be decided without the Fabric8 types; the names are the same.
 */
public enum Phase {
    Pending, Initializing, Running, Verifying, Succeeded, Failed, Hacked, TimedOut;

    public boolean isTerminal() { return ordinal() >= Succeeded.ordinal(); }

    /** A terminal phase with its machine-readable reason (the operator's reason names) and a message for people. */
    public record Decision(Phase phase, String reason, String message) {}

    /**
     * Decides how an attempt ended. Order matters: an interrupted or un-set-up run has no grade to
     * trust; a finding outranks the deadline (the hack is what a researcher must see); a grade that
     * could not be computed, or an agent that crashed, is a failure whatever the reward says.
     */
    public static Decision terminal(Facts f) {
        if (f.interrupted()) return new Decision(Failed, "Interrupted", "stopped by Ctrl-C before grading");
        if (f.setupError() != null) return new Decision(Failed, "SetupFailed", f.setupError());
        if (f.flaggedFindings() > 0) {
            return new Decision(Hacked, "RewardHackDetected", f.flaggedFindings() + " reward-hack finding"
                    + (f.flaggedFindings() == 1 ? "" : "s") + " under the " + f.policy() + " policy");
        }
        if (f.timedOut()) return new Decision(TimedOut, "DeadlineExceeded", "the rollout ran past limits.maxDurationSeconds ("
                + f.deadlineSeconds() + " s); its agent was stopped");
        if (f.limitExceeded() != null) return new Decision(Failed, "ResourceLimitExceeded", "the sandbox stopped the agent: " + f.limitExceeded());
        if (f.verdict() == null || "error".equals(f.verdict())) {
            return new Decision(Failed, "VerificationFailed", f.gradeError() == null ? "grading did not run" : f.gradeError());
        }
        if (f.agentExit() != null && f.agentExit() != 0) {
            return new Decision(Failed, "AgentFailed", "the agent command exited with status " + f.agentExit());
        }
        return new Decision(Succeeded, "Verified", "graded " + f.verdict() + " with no reward-hack finding");
    }

    /** What happened, as {@link #terminal} needs it. */
    public record Facts(boolean interrupted, String setupError, int flaggedFindings, String policy, boolean timedOut,
                        long deadlineSeconds, String verdict, String gradeError, Integer agentExit, String limitExceeded) {
        /** Without a resource limit hit (limitExceeded: the sandbox's reason, e.g. "memory limit 1Gi reached (OOM kill)"). */
        public Facts(boolean interrupted, String setupError, int flaggedFindings, String policy, boolean timedOut,
                     long deadlineSeconds, String verdict, String gradeError, Integer agentExit) {
            this(interrupted, setupError, flaggedFindings, policy, timedOut, deadlineSeconds, verdict, gradeError, agentExit, null);
        }
    }
}
