package dev.crucible.api.v1alpha1.rollout;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** The agent harness of an embedded rollout. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AgentSpec {
    @JsonPropertyDescription("Image of the agent container; defaults to the environment's image.")
    @Size(max = 1024)
    @Pattern("^[a-zA-Z0-9][a-zA-Z0-9._/:@-]*$")
    public String image;

    @JsonPropertyDescription("Command run in the workspace.")
    @Required
    @Size(min = 1, max = 64)
    public List<@Size(max = 32768) String> command;

    @Size(max = 64)
    public List<EnvVar> env;
}
