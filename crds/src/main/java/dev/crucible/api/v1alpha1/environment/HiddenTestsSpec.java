package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Tests kept out of the workspace and applied only at grading (as SWE-bench applies its test patch). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HiddenTestsSpec {
    @JsonPropertyDescription("Directory of test files copied into the grading tree only, relative to the manifest.")
    @Size(max = 4096)
    public String path;

    @JsonPropertyDescription("Unified diff applied to the grading tree only, relative to the manifest.")
    @Size(max = 4096)
    public String patch;
}
