package dev.crucible.api.v1alpha1.environment;

import dev.crucible.contract.SpecDefaults;
import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Multi-node layout: roles × replicas × GPUs, started all-or-nothing. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.roles.all(r, self.roles.exists_one(o, o.name == r.name))",
        message = "role names must be unique", fieldPath = ".roles")
public class TopologySpec {
    @Required
    @Size(min = 1, max = 8)
    public List<RoleSpec> roles;

    @JsonPropertyDescription("Seconds to wait for the whole gang to be placed before giving up and removing it.")
    @Default("" + SpecDefaults.GANG_TIMEOUT_SECONDS)
    @Min(10)
    @Max(86400)
    public Integer gangTimeoutSeconds;
}
