package dev.crucible.verifier.grade;

import com.fasterxml.jackson.annotation.JsonInclude;

/** One test in a report; {@code group} is failToPass, passToPass or other (SWE-bench semantics). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TestCase(String id, TestStatus status, String group, Long durationMs, String message) {
    public TestCase withGroup(String g) { return new TestCase(id, status, g, durationMs, message); }
}
