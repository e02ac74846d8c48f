package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Where the reference forward pass runs. */
public enum Device {
    @JsonProperty("auto") AUTO,
    @JsonProperty("cuda") CUDA,
    @JsonProperty("cpu") CPU
}
