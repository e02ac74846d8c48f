package dev.crucible.api.v1alpha1.rollout;

import dev.crucible.api.v1alpha1.common.ObjectRef;
import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** One agent run against an RLEnvironment. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.mode != 'embedded' || has(self.agent)",
        message = "an embedded rollout needs agent", fieldPath = ".agent")
@ValidationRule(value = "self.mode != 'interactive' || !has(self.agent)",
        message = "an interactive rollout is driven from outside and takes no agent", fieldPath = ".agent")
@ValidationRule(value = "!has(self.snapshotPolicy) || !has(self.snapshotPolicy.onHack) || self.snapshotPolicy.onHack != 'revert' || has(self.snapshotPolicy.intervalSeconds)",
        message = "onHack: revert needs periodic snapshots (intervalSeconds) to revert to", fieldPath = ".snapshotPolicy.intervalSeconds")
public class RolloutSpec {
    @Required
    @ValidationRule(value = "self == oldSelf", message = "environmentRef is immutable")
    public ObjectRef environmentRef;

    @Default("embedded")
    public RolloutMode mode;

    public AgentSpec agent;

    public LimitsSpec limits;

    public GroupSpec group;

    public SnapshotPolicySpec snapshotPolicy;

    @ValidationRule(value = "self == oldSelf", message = "restoreFrom is immutable")
    public RestoreFromSpec restoreFrom;

    @JsonPropertyDescription("Changes applied to the workspace before the agent starts.")
    @Size(max = 64)
    public List<PatchSpec> patches;

    public PlacementSpec placement;

    @JsonPropertyDescription("Delete this rollout's snapshots when it is deleted.")
    @Default("false")
    public Boolean deleteSnapshotsOnDelete;
}
