package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How training handles the rare in-band class. */
public enum Balance {
    @JsonProperty("downsample") DOWNSAMPLE,
    @JsonProperty("weighted-loss") WEIGHTED_LOSS
}
