package dev.crucible.controllers.common;

/**
 * Labels and annotations of warm-pool pods (issue 39). A pool pod is created unclaimed, owned by its
 * RLEnvironment; a claim changes it once, in one conditional write, into a Rollout's pod: state
 * {@value #CLAIMED}, the Rollout as controller owner, the attempt's data in annotations the pod's
 * downward-API volume shows to its sidecar. A claimed pod never goes back.
 */
public final class WarmPoolLabels {
    /** Selects every pod of one environment's pool, claimed or not (the environment's name, truncated). */
    public static final String POOL = "crucible.dev/warm-pool";
    /** {@value #FREE} until claimed, then {@value #CLAIMED}. */
    public static final String STATE = "crucible.dev/warm-state";
    public static final String FREE = "free";
    public static final String CLAIMED = "claimed";
    /** Hash of the pod template the pod was built from: a pod of an older template (environment, operator) is replaced. */
    public static final String TEMPLATE = "crucible.dev/warm-template";
    /** The environment's full name (a label value is cut at 63 characters). */
    public static final String ENVIRONMENT_ANNOTATION = "crucible.dev/warm-pool-environment";
    /** On a claimed pod: the member pod name the Rollout plans (its state machine finds its pods by these). */
    public static final String MEMBER_ANNOTATION = "crucible.dev/member-pod";
    /** On a claimed pod: when it was claimed (RFC 3339). */
    public static final String CLAIMED_AT_ANNOTATION = "crucible.dev/claimed-at";
    /**
     * On a claimed pod: the attempt's data (JSON: rollout, namespace, deadlineAt, maxDurationSeconds, maxTurns,
     * mode), shown to the sidecar as {@value #CLAIM_FILE} beside rollout.yaml; empty while unclaimed.
     */
    public static final String CLAIM_ANNOTATION = "crucible.dev/claim";
    public static final String CLAIM_FILE = "claim.json";
    /** Set on a pool pod's sidecar: wait until {@value #CLAIM_FILE} holds a claim, and take identity and limits from it. */
    public static final String WARM_POOL_ENV = "CRUCIBLE_WARM_POOL";

    private WarmPoolLabels() {
    }
}
