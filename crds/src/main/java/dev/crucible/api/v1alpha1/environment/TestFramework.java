package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How per-test results are read from a test-suite run. Unset: the test-suite grader recognises go test,
 * cargo test / nextest, node --test, jest, vitest, mocha, python -m unittest, Maven and Gradle from the command, else pytest.
 */
public enum TestFramework {
    @JsonProperty("pytest") PYTEST,
    @JsonProperty("junit-xml") JUNIT_XML,
    @JsonProperty("tap") TAP,
    @JsonProperty("go") GO,
    @JsonProperty("cargo") CARGO,
    @JsonProperty("nextest") NEXTEST,
    @JsonProperty("node-test") NODE_TEST,
    @JsonProperty("jest") JEST,
    @JsonProperty("vitest") VITEST,
    @JsonProperty("mocha") MOCHA,
    @JsonProperty("unittest") UNITTEST,
    @JsonProperty("maven") MAVEN,
    @JsonProperty("gradle") GRADLE
}
