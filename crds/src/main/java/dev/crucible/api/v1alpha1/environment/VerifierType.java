package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Verification strategies (seed 002). */
public enum VerifierType {
    /** The command's exit status alone. */
    @JsonProperty("execution") EXECUTION,
    /** stdin/stdout cases. */
    @JsonProperty("io") IO,
    /** A script of assertions whose exit status grades. */
    @JsonProperty("assertion") ASSERTION,
    /** A test suite with per-test results and FAIL_TO_PASS / PASS_TO_PASS. */
    @JsonProperty("test-suite") TEST_SUITE,
    /** CURE: n solutions × m tests matrix. */
    @JsonProperty("bidirectional") BIDIRECTIONAL,
    /** Weighted components. */
    @JsonProperty("composite") COMPOSITE
}
