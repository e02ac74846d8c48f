package dev.crucible.api.v1alpha1.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.*;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One reward-hack finding of the verifier's live monitor, as shown in Rollout status. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HackFinding {
    @JsonPropertyDescription("Detector that fired, e.g. protected-path-modified, pytest-skip-injection.")
    public String detector;
    @JsonPropertyDescription("Rule of the detector that fired (e.g. eq-lambda, fetch), as hackPolicy.severity and hackPolicy.ignore name it.")
    public String rule;
    @JsonPropertyDescription("info, low, medium, high or critical; info is recorded only, never a hack.")
    public String severity;
    @JsonPropertyDescription("File the finding is about, relative to the workspace.")
    public String path;
    @JsonPropertyDescription("What was seen, shortened.")
    public String evidence;
    @JsonPropertyDescription("When it was seen (RFC 3339).")
    public String time;
    @JsonPropertyDescription("Agent step index at detection, when known.")
    public Integer step;
    @JsonPropertyDescription("Action the hack policy took: record (info findings), flag, terminate or revert.")
    public String action;
}
