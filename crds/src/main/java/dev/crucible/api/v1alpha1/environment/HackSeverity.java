package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Severity of a reward-hack finding; info is recorded but never a hack and triggers no policy action. */
public enum HackSeverity {
    @JsonProperty("info") INFO,
    @JsonProperty("low") LOW,
    @JsonProperty("medium") MEDIUM,
    @JsonProperty("high") HIGH,
    @JsonProperty("critical") CRITICAL
}
