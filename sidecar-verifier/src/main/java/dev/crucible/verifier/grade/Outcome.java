package dev.crucible.verifier.grade;

import dev.crucible.contract.Verdict;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * What one verification strategy concluded. {@code verdict} is pass, fail or error (the grader could
 * not run); {@code category} is the CodeRL class: build-failed, runtime-error, tests-failed, passed.
 * {@code integrity} is what grading itself observed about the run (the reporter's audit hook and
 * internals checks, result-channel anomalies); Episode hands it to the monitor as findings.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Outcome(String type, double reward, String verdict, String category, String reason,
                      Double partialCredit, List<TestCase> tests, Map<String, Object> details, long commandMs,
                      @JsonIgnore List<IntegrityFinding> integrity) {
    public Outcome {
        tests = tests == null ? List.of() : List.copyOf(tests);
        integrity = integrity == null ? List.of() : List.copyOf(integrity);
    }

    public Outcome(String type, double reward, String verdict, String category, String reason,
                   Double partialCredit, List<TestCase> tests, Map<String, Object> details, long commandMs) {
        this(type, reward, verdict, category, reason, partialCredit, tests, details, commandMs, List.of());
    }

    public boolean passed() { return Verdict.PASS.wire().equals(verdict); }
}
