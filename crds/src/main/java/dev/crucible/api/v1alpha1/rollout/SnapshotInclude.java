package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** What a snapshot captures. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "(!has(self.memory) || self.memory) || (!has(self.disk) || self.disk)",
        message = "a snapshot must include memory or disk")
public class SnapshotInclude {
    @JsonPropertyDescription("Process memory and state, via CRIU.")
    @Default("true")
    public Boolean memory;
    @JsonPropertyDescription("GPU state, via cuda-checkpoint (GPU rollouts).")
    @Default("true")
    public Boolean gpu;
    @JsonPropertyDescription("The workspace volume.")
    @Default("true")
    public Boolean disk;
}
