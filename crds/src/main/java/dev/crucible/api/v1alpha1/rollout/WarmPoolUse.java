package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Whether a Rollout may take a ready pod of its environment's warm pool. */
public enum WarmPoolUse {
    /** Take a ready pool pod when one exists, else start cold (the default). */
    @JsonProperty("ifAvailable") IF_AVAILABLE,
    /** Always start cold. */
    @JsonProperty("never") NEVER
}
