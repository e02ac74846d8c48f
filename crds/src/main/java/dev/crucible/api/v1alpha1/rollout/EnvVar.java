package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** A plain environment variable for the agent (no secrets: the agent is untrusted). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EnvVar {
    @Required
    @Pattern(dev.crucible.api.v1alpha1.common.Names.ENV_VAR)
    @Size(max = 256)
    public String name;
    @Size(max = 32768)
    public String value;
}
