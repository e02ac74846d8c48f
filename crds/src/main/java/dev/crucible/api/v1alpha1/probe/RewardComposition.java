package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How validity and the probe's output become a reward (PROPEL section 5). */
public enum RewardComposition {
    /** Invalid tasks get invalidFloor; valid ones the raw logit. */
    @JsonProperty("hard-gate") HARD_GATE,
    /** Validity times the probability clipped to [clipMin, clipMax]. */
    @JsonProperty("soft-gate") SOFT_GATE,
    /** The probe's logit alone. */
    @JsonProperty("probe-only") PROBE_ONLY
}
