package dev.crucible.api.v1alpha1.snapshot;

import dev.crucible.api.v1alpha1.common.ObjectRef;
import dev.crucible.api.v1alpha1.rollout.SnapshotInclude;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** A consistent snapshot of every member of a running rollout. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self == oldSelf", message = "a snapshot's spec is immutable; create a new RolloutSnapshot")
public class RolloutSnapshotSpec {
    @Required
    public ObjectRef rolloutRef;

    public SnapshotInclude include;

    @JsonPropertyDescription("Keep the rollout running after the dump (true) or stop it (false).")
    @Default("true")
    public Boolean leaveRunning;

    @JsonPropertyDescription("Checkpoint established TCP connections (CRIU --tcp-established).")
    @Default("false")
    public Boolean tcpEstablished;

    public StorageSpec storage;

    @JsonPropertyDescription("Seconds until the snapshot is garbage-collected; absent keeps it.")
    @Min(60)
    @Max(31536000)
    public Integer ttlSeconds;

    @JsonPropertyDescription("Seconds the whole two-phase protocol may take before it aborts and thaws everything.")
    @Default("120")
    @Min(5)
    @Max(3600)
    public Integer timeoutSeconds;

    @Default("manual")
    public SnapshotTrigger trigger;
}
