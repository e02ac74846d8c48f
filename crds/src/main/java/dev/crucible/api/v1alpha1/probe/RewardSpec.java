package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Reward composition for a task generator trained against the probe. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.clipMin) || !has(self.clipMax) || self.clipMin < self.clipMax",
        message = "clipMin must be below clipMax", fieldPath = ".clipMin")
public class RewardSpec {
    @Default("hard-gate")
    public RewardComposition composition;

    @JsonPropertyDescription("Reward of an invalid task under hard-gate.")
    @Default("-5.0")
    @Min(-1000)
    @Max(0)
    public Double invalidFloor;

    @JsonPropertyDescription("Lower clip of the probability under soft-gate.")
    @Default("0.0")
    @Min(0)
    @Max(1)
    public Double clipMin;

    @JsonPropertyDescription("Upper clip of the probability under soft-gate.")
    @Default("1.0")
    @Min(0)
    @Max(1)
    public Double clipMax;
}
