package dev.crucible.api.v1alpha1.snapshot;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Where snapshot images are kept. */
public enum StorageType {
    /** The snapshot agent's image store on each member's node. */
    @JsonProperty("node-local") NODE_LOCAL,
    /** A PersistentVolumeClaim mounted by the snapshot agents (restore on any node). */
    @JsonProperty("pvc") PVC
}
