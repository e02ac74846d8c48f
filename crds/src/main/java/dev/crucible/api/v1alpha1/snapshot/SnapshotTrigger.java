package dev.crucible.api.v1alpha1.snapshot;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Why the snapshot was taken. */
public enum SnapshotTrigger {
    @JsonProperty("manual") MANUAL,
    @JsonProperty("periodic") PERIODIC,
    @JsonProperty("hack") HACK
}
