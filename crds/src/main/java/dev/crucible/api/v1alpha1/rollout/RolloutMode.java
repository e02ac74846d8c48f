package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Who drives the episode. */
public enum RolloutMode {
    /** An external trainer drives reset / step / verify through the environment API. */
    @JsonProperty("interactive") INTERACTIVE,
    /** An agent harness runs inside the pod. */
    @JsonProperty("embedded") EMBEDDED
}
