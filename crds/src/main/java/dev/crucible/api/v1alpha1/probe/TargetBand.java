package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** The learnable band as the probe's label: solved between minSolves and maxSolves of attempts (PROPEL: 1-3 of 8). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.minSolves <= self.maxSolves", message = "minSolves must not exceed maxSolves", fieldPath = ".minSolves")
@ValidationRule(value = "self.maxSolves <= self.attempts", message = "maxSolves must not exceed attempts", fieldPath = ".maxSolves")
public class TargetBand {
    @Required
    @Min(0)
    @Max(1024)
    public Integer minSolves;
    @Required
    @Min(0)
    @Max(1024)
    public Integer maxSolves;
    @Required
    @Min(1)
    @Max(1024)
    public Integer attempts;
}
