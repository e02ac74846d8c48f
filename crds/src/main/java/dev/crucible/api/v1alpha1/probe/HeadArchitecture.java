package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Probe head architectures. */
public enum HeadArchitecture {
    @JsonProperty("linear") LINEAR,
    @JsonProperty("mlp") MLP,
    @JsonProperty("deep-mlp") DEEP_MLP
}
