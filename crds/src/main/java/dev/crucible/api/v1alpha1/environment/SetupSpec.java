package dev.crucible.api.v1alpha1.environment;

import dev.crucible.contract.SpecDefaults;
import java.util.List;
import java.util.Map;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** How the workspace is brought to the point where its tests can run. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SetupSpec {
    @JsonPropertyDescription("Shell script run in the workspace before the agent starts.")
    @Size(max = 65536)
    public String script;

    @JsonPropertyDescription("Seconds the setup script may run.")
    @Default("" + SpecDefaults.SETUP_TIMEOUT_SECONDS)
    @Min(1)
    @Max(86400)
    public Integer timeoutSeconds = SpecDefaults.SETUP_TIMEOUT_SECONDS;

    @JsonPropertyDescription("Toolchain versions the setup needs, e.g. python: '3.11', node: '20'.")
    public Map<String, String> toolchains;

    @JsonPropertyDescription("Environment variables for setup, agent and verifier.")
    public Map<String, String> env;

    @JsonPropertyDescription("Names of secret variables the source's CI used; map them yourself, they are never copied.")
    @Size(max = 64)
    public List<@Pattern(dev.crucible.api.v1alpha1.common.Names.ENV_VAR) String> secretEnv;
}
