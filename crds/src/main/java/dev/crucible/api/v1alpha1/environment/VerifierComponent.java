package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** One weighted part of a composite verifier. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.type != 'composite'", message = "components cannot nest", fieldPath = ".type")
public class VerifierComponent extends CheckSpec {
    @Required
    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_LABEL)
    @Size(max = 63)
    public String name;

    // No schema default (1.0 when absent): a default the server fills inside a list item makes every
    // client-side `kubectl apply` of the environment report `configured`.
    @JsonPropertyDescription("Weight of this component in the reward; 1.0 when absent.")
    @Min(0)
    @Max(1000)
    public Double weight;
}
