package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How per-turn vectors of an agent trajectory become one. */
public enum TurnAggregation {
    @JsonProperty("mean") MEAN,
    @JsonProperty("max") MAX,
    @JsonProperty("min") MIN,
    @JsonProperty("last") LAST
}
