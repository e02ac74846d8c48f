package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** GRPO-style group: attempts of the same task whose rewards are compared. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.size) || self.attempt < self.size",
        message = "attempt must be smaller than size", fieldPath = ".attempt")
public class GroupSpec {
    @Required
    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_LABEL)
    @Size(max = 63)
    public String id;

    @Required
    @Min(0)
    @Max(4095)
    public Integer attempt;

    @JsonPropertyDescription("Attempts planned for the group.")
    @Min(1)
    @Max(4096)
    public Integer size;
}
