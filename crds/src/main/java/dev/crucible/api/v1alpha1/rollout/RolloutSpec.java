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
// Spec edits with a meaning (issue 18): what the running attempt was built from cannot change after
// creation (transition rules, so the API server refuses the edit instead of accepting and ignoring it);
// snapshotPolicy and deleteSnapshotsOnDelete are read on every reconcile and may change. crds/README.md
// lists which is which.
@ValidationRule(value = "self.mode == oldSelf.mode",
        message = "mode is immutable: it is fixed when the attempt starts; create a new Rollout to change it", fieldPath = ".mode")
@ValidationRule(value = "has(self.agent) == has(oldSelf.agent) && (!has(self.agent) || self.agent == oldSelf.agent)",
        message = "agent is immutable: it is fixed when the attempt starts; create a new Rollout to change it", fieldPath = ".agent")
@ValidationRule(value = "has(self.limits) == has(oldSelf.limits) && (!has(self.limits) || self.limits == oldSelf.limits)",
        message = "limits is immutable: it is fixed when the attempt starts; create a new Rollout to change it", fieldPath = ".limits")
@ValidationRule(value = "has(self.group) == has(oldSelf.group) && (!has(self.group) || self.group == oldSelf.group)",
        message = "group is immutable: it is fixed when the attempt starts; create a new Rollout to change it", fieldPath = ".group")
@ValidationRule(value = "has(self.restoreFrom) == has(oldSelf.restoreFrom) && (!has(self.restoreFrom) || self.restoreFrom == oldSelf.restoreFrom)",
        message = "restoreFrom is immutable: it is fixed when the attempt starts; create a new Rollout to change it", fieldPath = ".restoreFrom")
@ValidationRule(value = "has(self.patches) == has(oldSelf.patches) && (!has(self.patches) || self.patches == oldSelf.patches)",
        message = "patches is immutable: it is fixed when the attempt starts; create a new Rollout to change it", fieldPath = ".patches")
@ValidationRule(value = "has(self.placement) == has(oldSelf.placement) && (!has(self.placement) || self.placement == oldSelf.placement)",
        message = "placement is immutable: it is fixed when the attempt starts; create a new Rollout to change it", fieldPath = ".placement")
@ValidationRule(value = "has(self.warmPool) == has(oldSelf.warmPool) && (!has(self.warmPool) || self.warmPool == oldSelf.warmPool)",
        message = "warmPool is immutable: it is fixed when the attempt starts; create a new Rollout to change it", fieldPath = ".warmPool")
public class RolloutSpec {
    @Required
    @ValidationRule(value = "self == oldSelf",
            message = "environmentRef is immutable: it is fixed when the attempt starts; create a new Rollout to change it")
    public ObjectRef environmentRef;

    @Default("embedded")
    public RolloutMode mode;

    public AgentSpec agent;

    public LimitsSpec limits;

    public GroupSpec group;

    public SnapshotPolicySpec snapshotPolicy;

    public RestoreFromSpec restoreFrom;

    @JsonPropertyDescription("Changes applied to the workspace before the agent starts.")
    @Size(max = 64)
    public List<PatchSpec> patches;

    public PlacementSpec placement;

    @JsonPropertyDescription("ifAvailable (default): take a ready pod of the environment's warm pool when one exists, else start cold; never: always start cold.")
    public WarmPoolUse warmPool;

    @JsonPropertyDescription("Delete this rollout's snapshots when it is deleted.")
    @Default("false")
    public Boolean deleteSnapshotsOnDelete;
}
