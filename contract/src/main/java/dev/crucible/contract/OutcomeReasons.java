package dev.crucible.contract;

/** The machine-readable reasons of terminal outcomes, the same locally and in a cluster. */
public final class OutcomeReasons {
    public static final String INTERRUPTED = "Interrupted";
    public static final String SETUP_FAILED = "SetupFailed";
    public static final String HACK_DETECTED = "RewardHackDetected";
    public static final String DEADLINE_EXCEEDED = "DeadlineExceeded";
    public static final String RESOURCE_LIMIT_EXCEEDED = "ResourceLimitExceeded";
    public static final String VERIFICATION_FAILED = "VerificationFailed";
    public static final String VERIFIED = "Verified";

    private OutcomeReasons() {}
}
