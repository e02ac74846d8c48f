package dev.crucible.api.v1alpha1.rollout;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Periodic and event-driven snapshots of a running rollout. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SnapshotPolicySpec {
    @JsonPropertyDescription("Seconds between periodic snapshots.")
    @Min(30)
    @Max(604800)
    public Integer intervalSeconds;

    @JsonPropertyDescription("Periodic snapshots to keep; older ones are deleted.")
    @Default("3")
    @Min(1)
    @Max(100)
    public Integer keep;

    @Default("none")
    public OnHack onHack;

    @JsonPropertyDescription("onHack: revert: changes applied to the reverted workspace before the agent continues "
            + "(a hint, a repaired test); they become the revert branch's spec.patches.")
    @Size(max = 64)
    public List<PatchSpec> revertPatches;

    public SnapshotInclude include;

    @JsonPropertyDescription("Snapshot without stopping the rollout (CRIU --leave-running).")
    @Default("true")
    public Boolean leaveRunning;
}
