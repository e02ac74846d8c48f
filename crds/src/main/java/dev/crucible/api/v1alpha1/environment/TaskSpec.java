package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** What the agent is asked to do. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TaskSpec {
    @JsonPropertyDescription("The task prompt handed to the agent.")
    @Required
    @Size(min = 1, max = 262144)
    public String prompt;
}
