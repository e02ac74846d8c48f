package dev.crucible.api.v1alpha1.snapshot;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Observed state of a snapshot. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RolloutSnapshotStatus {
    public Long observedGeneration;
    public SnapshotPhase phase;
    public String reason;
    public String message;
    public List<Condition> conditions = new ArrayList<>();
    public List<SnapshotMember> members;
    @JsonPropertyDescription("Milliseconds from the first member frozen to the last thawed.")
    public Long freezeWindowMillis;
    @JsonPropertyDescription("The instant every member was frozen (RFC 3339).")
    public String consistentAt;
    public Long totalBytes;
    public String expiresAt;
}
