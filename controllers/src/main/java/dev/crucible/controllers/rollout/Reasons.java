package dev.crucible.controllers.rollout;

import dev.crucible.contract.OutcomeReasons;

/** Machine-readable reasons of Rollout phases and Events: each names what happened and hints at the fix (terminal ones from the contract). */
public final class Reasons {
    public static final String ENVIRONMENT_NOT_FOUND = "EnvironmentNotFound";
    public static final String ENVIRONMENT_INVALID = "EnvironmentInvalid";
    public static final String CREATING_PODS = "CreatingPods";
    public static final String GANG_RELEASED = "GangReleased";
    public static final String SCHEDULING = "Scheduling";
    public static final String UNSCHEDULABLE = "Unschedulable";
    public static final String GANG_TIMEOUT = "GangTimeout";
    /** Created and held back whole: the gang does not fit the nodes now. */
    public static final String GANG_WAITING = "GangWaitingForCapacity";
    /** No node could ever hold a member, or the gang asks more than all matching nodes have. */
    public static final String GANG_CANNOT_FIT = "GangCannotFit";
    /** A single pod the scheduler could not place, and no node could ever hold. */
    public static final String CANNOT_FIT = "CannotFit";
    public static final String STARTING = "ContainersStarting";
    public static final String RUNNING = "AgentRunning";
    public static final String AGENT_FINISHED = "AgentFinished";
    /** Past the deadline, waiting (briefly) for the verifier's result before TimedOut. */
    public static final String VERIFIER_FINISHING = "VerifierFinishing";
    public static final String VERIFIED = OutcomeReasons.VERIFIED;
    public static final String VERIFICATION_FAILED = OutcomeReasons.VERIFICATION_FAILED;
    public static final String HACK_DETECTED = OutcomeReasons.HACK_DETECTED;
    public static final String LIMIT_EXCEEDED = OutcomeReasons.RESOURCE_LIMIT_EXCEEDED;
    public static final String DEADLINE_EXCEEDED = OutcomeReasons.DEADLINE_EXCEEDED;
    public static final String VERIFIER_RESULT_INVALID = "VerifierResultInvalid";
    public static final String POD_FAILED = "PodFailed";
    public static final String MEMBER_LOST = "MemberLost";
    /** A member's node was deleted or lost (NodeLoss): an infrastructure failure, left out of the solve rate. */
    public static final String NODE_LOST = "NodeLost";
    public static final String POD_REJECTED = "PodRejected";
    public static final String WAITING_FOR_SNAPSHOT = "WaitingForSnapshot";
    public static final String RESTORE_REJECTED = "RestoreRejected";
    public static final String GPU_MISMATCH = "GpuMismatch";
    public static final String RESTORE_FAILED = "RestoreFailed";
    public static final String RESTORED = "Restored";
    /** Condition Degraded: the API server refused a snapshot the policy or onHack asked for (admission, quota). */
    public static final String SNAPSHOT_REFUSED = "SnapshotRefused";
    /** Condition Degraded back to False: the next snapshot was created. */
    public static final String SNAPSHOTS_CREATED = "SnapshotsCreated";

    private Reasons() {
    }
}
