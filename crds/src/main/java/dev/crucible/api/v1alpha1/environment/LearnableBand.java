package dev.crucible.api.v1alpha1.environment;

import dev.crucible.contract.SpecDefaults;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Solve rates that count as learnable for a group (PROPEL: solved by some but not all attempts). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.minSolveRate) || !has(self.maxSolveRate) || self.minSolveRate <= self.maxSolveRate",
        message = "minSolveRate must not exceed maxSolveRate", fieldPath = ".minSolveRate")
public class LearnableBand {
    @JsonPropertyDescription("Lowest solve rate (solved / attempts) inside the band, inclusive.")
    @Default("" + SpecDefaults.MIN_SOLVE_RATE)
    @Min(0)
    @Max(1)
    public Double minSolveRate;

    @JsonPropertyDescription("Highest solve rate inside the band, inclusive.")
    @Default("" + SpecDefaults.MAX_SOLVE_RATE)
    @Min(0)
    @Max(1)
    public Double maxSolveRate;
}
