package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Solve count of one GRPO group of attempts. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class GroupStatistics {
    public String id;
    public Integer attempts;
    @JsonPropertyDescription("Finished attempts whose agent ran.")
    public Integer finished;
    @JsonPropertyDescription("Finished rollouts of the group whose agent never ran (not counted as attempts).")
    public Integer infrastructureFailures;
    public Integer solved;
    @JsonPropertyDescription("Whether the group's solve rate lies in the learnable band.")
    public Boolean learnable;
}
