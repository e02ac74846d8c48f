package dev.crucible.contract;

/** The machine-readable reasons of terminal outcomes, the same locally and in a cluster. */
public final class OutcomeReasons {
    public static final String INTERRUPTED = "Interrupted";
    public static final String SETUP_FAILED = "SetupFailed";
    /** No sandbox could be made, so the agent was never started: a refusal of the run, never a judgement of the agent. */
    public static final String SANDBOX_UNAVAILABLE = "SandboxUnavailable";
    public static final String HACK_DETECTED = "RewardHackDetected";
    public static final String DEADLINE_EXCEEDED = "DeadlineExceeded";
    public static final String RESOURCE_LIMIT_EXCEEDED = "ResourceLimitExceeded";
    public static final String VERIFICATION_FAILED = "VerificationFailed";
    public static final String VERIFIED = "Verified";

    private OutcomeReasons() {}
}
