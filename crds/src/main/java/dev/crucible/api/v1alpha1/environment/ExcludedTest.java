package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** A test that runs but never counts, with the reason shown in results (written by crucible verify --find-offline). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ExcludedTest {
    @JsonPropertyDescription("Test id as the runner's results name it.")
    @Required
    @Size(min = 1, max = 1024)
    public String id;

    @JsonPropertyDescription("Why it does not count, e.g. the line of its failure that names an unreachable network.")
    @Required
    @Size(min = 1, max = 1024)
    public String reason;
}
