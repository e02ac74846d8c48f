package dev.crucible.api.v1alpha1.environment;

import dev.crucible.contract.SpecDefaults;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Where the agent's working tree comes from and where it lives in the pod. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class WorkspaceSpec {
    @JsonPropertyDescription("Local directory with the workspace, relative to the manifest (used by crucible run); in a cluster the image's directory at mountPath. The agent gets a fresh one-commit git repository of its files (its own .git is not copied). Not /, the git checkout's root, a folder holding the manifest or the hidden tests, or an ancestor of the output folder.")
    @Size(max = 4096)
    public String path;

    @JsonPropertyDescription("Absolute path of the workspace inside rollout pods.")
    @Default(SpecDefaults.WORKSPACE_MOUNT_PATH)
    @Pattern("^/.*$")
    @Size(max = 1024)
    public String mountPath = SpecDefaults.WORKSPACE_MOUNT_PATH;

    @JsonPropertyDescription("Size limit of the workspace volume, a Kubernetes quantity.")
    @Pattern(dev.crucible.api.v1alpha1.common.Quantities.PATTERN)
    public String sizeLimit;
}
