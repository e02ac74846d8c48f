package dev.crucible.api.v1alpha1.environment;

import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** A packaged environment: where the code comes from, how to set it up, the task, and how it is graded. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.image) || has(self.workspace) || has(self.source)",
        message = "one of image, workspace or source is required")
@ValidationRule(value = "!has(self.topology) || !has(self.resources) || !has(self.resources.gpus) || self.resources.gpus == 0 || self.topology.roles.all(r, !has(r.gpusPerReplica))",
        message = "set GPUs either in resources.gpus or per role in topology, not both", fieldPath = ".topology")
public class RLEnvironmentSpec {
    @JsonPropertyDescription("Container image of the environment (cluster); holds the workspace at workspace.mountPath.")
    @Size(max = 1024)
    @Pattern("^[a-zA-Z0-9][a-zA-Z0-9._/:@-]*$")
    public String image;

    public WorkspaceSpec workspace;

    @JsonPropertyDescription("Repository, commit and CI workflow to derive setup and test commands from.")
    public SourceSpec source;

    public SetupSpec setup;

    @Required
    public TaskSpec task;

    @JsonPropertyDescription("Tools the environment API offers; defaults to all.")
    @Size(max = 5)
    public List<Tool> tools;

    @Required
    public VerifierSpec verifier;

    @JsonPropertyDescription("Checks reported beside the reward, e.g. lint.")
    @Size(max = 8)
    public List<AdditionalVerifier> additionalVerifiers;

    public HackPolicySpec hackPolicy;

    public ResourcesSpec resources;

    public SandboxSpec sandbox;

    @JsonPropertyDescription("Multi-node layout; absent means one pod.")
    public TopologySpec topology;

    @JsonPropertyDescription("Solve rates that make a group learnable in status statistics.")
    public LearnableBand learnableBand;

    @JsonPropertyDescription("Pods set up ahead of demand that Rollouts of this environment claim; absent means every Rollout starts cold.")
    public WarmPoolSpec warmPool;
}
