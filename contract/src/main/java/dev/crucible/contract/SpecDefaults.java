package dev.crucible.contract;

/**
 * What an RLEnvironment or Rollout field means when it is left out, written once. The CRD types name these
 * constants in their {@code @Default} annotations (so the API server fills the same values in), and the
 * sidecar, the CLI and the operator fall back to them when they read a manifest the API server never saw.
 * Numbers are constants too, so an annotation can write them as {@code "" + NAME}.
 */
public final class SpecDefaults {

    /** spec.verifier.type */
    public static final String VERIFIER_TYPE = "test-suite";
    /** spec.verifier.rewardMode */
    public static final String REWARD_MODE = "binary"; // RewardMode.BINARY.wire(): a constant, for @Default
    /** spec.verifier.timeoutSeconds: grading's own limit. */
    public static final int VERIFIER_TIMEOUT_SECONDS = 600;
    /** spec.verifier.framework of a test suite. */
    public static final String TEST_FRAMEWORK = "pytest";
    /** spec.verifier.interpreter for pytest grading. */
    public static final String INTERPRETER = "python3";
    /** spec.verifier.components[].weight */
    public static final double COMPONENT_WEIGHT = 1.0;
    /** spec.hackPolicy.action */
    public static final String HACK_POLICY_ACTION = "flag";
    /** spec.source.history */
    public static final String SOURCE_HISTORY = "commit";
    /** spec.setup.timeoutSeconds */
    public static final int SETUP_TIMEOUT_SECONDS = 600;
    /** spec.workspace.mountPath in rollout pods. */
    public static final String WORKSPACE_MOUNT_PATH = "/workspace";
    /** spec.network.egress */
    public static final String EGRESS = "deny";
    /** spec.topology.gangTimeoutSeconds */
    public static final int GANG_TIMEOUT_SECONDS = 300;
    /** spec.learnableBand.minSolveRate and maxSolveRate, inclusive. */
    public static final double MIN_SOLVE_RATE = 0.01;
    public static final double MAX_SOLVE_RATE = 0.99;
    /** Rollout spec.limits.maxDurationSeconds: the rollout's deadline. */
    public static final int MAX_DURATION_SECONDS = 3600;
    /**
     * spec.resources.ephemeralStorage of a local run (crucible run) whose environment sets none: the attempt's disk
     * limit (workspace and grading copies), so that no agent can fill the host's disk.
     */
    public static final String EPHEMERAL_STORAGE = "10Gi";

    private SpecDefaults() {
    }
}
