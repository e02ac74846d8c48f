package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** What derivation did with one step of the source's CI job. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DerivedStep {
    public Integer index;
    public String name;
    @JsonPropertyDescription("Line of the step in the workflow file.")
    public Integer line;
    @JsonPropertyDescription("setup, test, lint or dropped.")
    public String decision;
    public String reason;
}
