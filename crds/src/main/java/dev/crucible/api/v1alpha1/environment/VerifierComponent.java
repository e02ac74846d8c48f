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

    @JsonPropertyDescription("Weight of this component in the reward.")
    @Default("1.0")
    @Min(0)
    @Max(1000)
    public Double weight;
}
