package dev.crucible.verifier.grade;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * What one verification strategy concluded. {@code verdict} is pass, fail or error (the grader could
 * not run); {@code category} is the CodeRL class: build-failed, runtime-error, tests-failed, passed.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Outcome(String type, double reward, String verdict, String category, String reason,
                      Double partialCredit, List<TestCase> tests, Map<String, Object> details, long commandMs) {
    public Outcome {
        tests = tests == null ? List.of() : List.copyOf(tests);
    }

    public boolean passed() { return verdict.equals("pass"); }
}
