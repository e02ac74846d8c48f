package dev.crucible.api.v1alpha1.environment;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** One role of a multi-node topology, e.g. trainer × 2 with 8 GPUs each. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RoleSpec {
    @Required
    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_LABEL)
    @Size(max = 30)
    public String name;

    // No schema default (1 when absent): a default the server fills inside a list item makes every
    // client-side `kubectl apply` of the environment report `configured`.
    @JsonPropertyDescription("Replicas of this role; 1 when absent.")
    @Min(1)
    @Max(64)
    public Integer replicas;

    @JsonPropertyDescription("GPUs per replica of this role.")
    @Min(0)
    @Max(16)
    public Integer gpusPerReplica;

    @JsonPropertyDescription("Overrides the environment's resources for this role.")
    public dev.crucible.api.v1alpha1.common.ResourcesSpec resources;

    @JsonPropertyDescription("Command of this role's environment container; defaults to the image's.")
    @Size(max = 64)
    public List<String> command;
}
