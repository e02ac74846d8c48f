package dev.crucible.api.v1alpha1.common;

/** Condition type and status names used by every kind, per Kubernetes API conventions. */
public final class ConditionTypes {
    public static final String READY = "Ready";
    public static final String VALID = "Valid";
    public static final String PROGRESSING = "Progressing";
    public static final String DEGRADED = "Degraded";
    public static final String HACK_DETECTED = "HackDetected";
    /** RLEnvironment with spec.warmPool: True when the pool holds its target of ready pods. */
    public static final String WARM_POOL = "WarmPool";

    private ConditionTypes() {
    }
}
