package dev.crucible.verifier.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * CURE: every solution runs against every test. {@code command} is a template with {solution} and
 * {test}; {@code groundTruthTests} (optional) decide which solutions are correct, else all tests do.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Bidirectional(List<String> solutions, List<String> tests, String command, List<String> groundTruthTests) {
    public Bidirectional {
        solutions = solutions == null ? List.of() : List.copyOf(solutions);
        tests = tests == null ? List.of() : List.copyOf(tests);
        groundTruthTests = groundTruthTests == null ? List.of() : List.copyOf(groundTruthTests);
    }
}
