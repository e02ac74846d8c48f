package dev.crucible.api.v1alpha1.environment;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** How the live reward-hack monitor reacts. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HackPolicySpec {
    @JsonPropertyDescription("flag, terminate or revert (revert needs a snapshotPolicy on the Rollout).")
    @Default("flag")
    public HackAction action;

    @JsonPropertyDescription("Detectors to run; empty runs all.")
    @Size(max = 32)
    public List<HackDetector> detectors;
}
