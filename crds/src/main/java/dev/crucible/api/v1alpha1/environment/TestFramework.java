package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.crucible.contract.TestFrameworks;

/**
 * Values from the contract's {@link TestFrameworks}. How per-test results are read from a test-suite run. Unset: the test-suite grader recognises go test,
 * cargo test / nextest, node --test, jest, vitest, mocha, python -m unittest, Maven and Gradle from the command, else pytest.
 */
public enum TestFramework {
    @JsonProperty(TestFrameworks.PYTEST) PYTEST,
    @JsonProperty(TestFrameworks.JUNIT_XML) JUNIT_XML,
    @JsonProperty(TestFrameworks.TAP) TAP,
    @JsonProperty(TestFrameworks.GO) GO,
    @JsonProperty(TestFrameworks.CARGO) CARGO,
    @JsonProperty(TestFrameworks.NEXTEST) NEXTEST,
    @JsonProperty(TestFrameworks.NODE_TEST) NODE_TEST,
    @JsonProperty(TestFrameworks.JEST) JEST,
    @JsonProperty(TestFrameworks.VITEST) VITEST,
    @JsonProperty(TestFrameworks.MOCHA) MOCHA,
    @JsonProperty(TestFrameworks.UNITTEST) UNITTEST,
    @JsonProperty(TestFrameworks.MAVEN) MAVEN,
    @JsonProperty(TestFrameworks.GRADLE) GRADLE
}
