package dev.crucible.api.v1alpha1.environment;

import dev.crucible.contract.SpecDefaults;
import java.util.Map;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** A repository at a commit, with the CI workflow job that says how to install and test it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SourceSpec {
    @JsonPropertyDescription("Git repository: a URL, or a local path for crucible run.")
    @Required
    @Size(min = 1, max = 2048)
    public String repo;

    @JsonPropertyDescription("Commit to check out, a 7 to 40 character hex SHA.")
    @Required
    @Pattern("^[0-9a-f]{7,40}$")
    public String commit;

    @JsonPropertyDescription("History the agent's workspace keeps: commit (default) gives a fresh one-commit repository of the commit's tree; ancestors keeps the commit's ancestry (no other refs, no later objects, no remote).")
    @Default(SpecDefaults.SOURCE_HISTORY)
    @Pattern("^(commit|ancestors)$")
    public String history;

    @JsonPropertyDescription("CI workflow file to derive setup and test commands from, e.g. .github/workflows/ci.yml.")
    @Pattern("^[^/].*\\.ya?ml$")
    @Size(max = 1024)
    public String workflow;

    @JsonPropertyDescription("Job of the workflow; defaults to the only job, or the one that runs tests.")
    @Size(max = 256)
    public String job;

    @JsonPropertyDescription("Matrix combination to use, key to value; defaults to the first combination.")
    public Map<String, String> matrix;

    @JsonPropertyDescription("Name of the step that runs the tests, when detection picks the wrong one.")
    @Size(max = 256)
    public String testStep;
}
