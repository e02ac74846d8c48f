package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a verification result becomes a reward. */
public enum RewardMode {
    /** 1 when every required test passes, else 0. */
    @JsonProperty("binary") BINARY,
    /** Fraction of required tests that pass. */
    @JsonProperty("fraction") FRACTION,
    /** CodeRL: -1 does not build, -0.6 runtime error, -0.3 a test fails, +1 all pass. */
    @JsonProperty("coderl") CODERL,
    /** Weighted sum of composite components. */
    @JsonProperty("weighted") WEIGHTED
}
