package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Egress of rollout pods. */
public enum EgressMode {
    @JsonProperty("deny") DENY,
    @JsonProperty("allow-list") ALLOW_LIST
}
