package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** A change applied to the workspace before the agent starts (e.g. on a restored branch). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.diff) != has(self.content)",
        message = "give exactly one of diff or content")
@ValidationRule(value = "!has(self.path) || !self.path.matches('(^|/)[.][.](/|$)')",
        message = "path must stay inside the workspace (no .. segment)", fieldPath = ".path")
@ValidationRule(value = "!has(self.content) || has(self.path)",
        message = "content needs path", fieldPath = ".path")
public class PatchSpec {
    @JsonPropertyDescription("Unified diff applied in the workspace.")
    @Size(max = 1048576)
    public String diff;

    @JsonPropertyDescription("File (relative to the workspace) replaced by content.")
    @Pattern("^[^/].*$")
    @Size(max = 1024)
    public String path;

    @Size(max = 1048576)
    public String content;
}
