package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Snapshot behaviour when the hack monitor reports a finding. */
public enum OnHack {
    @JsonProperty("none") NONE,
    /** Snapshot the hacked state for inspection. */
    @JsonProperty("snapshot") SNAPSHOT,
    /** Restore the last good snapshot. */
    @JsonProperty("revert") REVERT
}
