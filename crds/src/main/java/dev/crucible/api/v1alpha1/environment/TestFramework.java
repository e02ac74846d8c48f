package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How per-test results are read from a test-suite run. */
public enum TestFramework {
    @JsonProperty("pytest") PYTEST,
    @JsonProperty("junit-xml") JUNIT_XML,
    @JsonProperty("tap") TAP
}
