package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** A separate check reported beside the reward, e.g. a lint job kept from the source's CI. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AdditionalVerifier extends CheckSpec {
    @Required
    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_LABEL)
    @Size(max = 63)
    public String name;
}
