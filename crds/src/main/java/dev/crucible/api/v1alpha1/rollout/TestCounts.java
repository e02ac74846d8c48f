package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Test outcome counts of the verifier's report. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TestCounts {
    public Integer passed;
    public Integer failed;
    public Integer errors;
    public Integer skipped;
    public Integer total;
    @JsonPropertyDescription("FAIL_TO_PASS tests that pass now, of failToPassTotal.")
    public Integer failToPassPassed;
    public Integer failToPassTotal;
    @JsonPropertyDescription("PASS_TO_PASS tests that still pass, of passToPassTotal.")
    public Integer passToPassPassed;
    public Integer passToPassTotal;
    @JsonPropertyDescription("How many tests the isolated oracle graded, each split from the agent's code; null where it did not grade.")
    public Integer isolated;
}
