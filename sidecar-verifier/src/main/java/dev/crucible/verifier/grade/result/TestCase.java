package dev.crucible.verifier.grade.result;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One test in a report; {@code group} is failToPass, passToPass or other (SWE-bench semantics).
 * {@code integrity}: where its verdict came from: {@code isolated} (pytest graded by the isolated oracle: the
 * test's assertions ran in the trusted grading process, the code under test in a boxed worker) or {@code in-process}
 * (the test could not run split and was graded as before); null where the oracle did not grade.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TestCase(String id, TestStatus status, String group, Long durationMs, String message, String integrity) {
    public static final String ISOLATED = "isolated";
    public static final String IN_PROCESS = "in-process";

    public TestCase(String id, TestStatus status, String group, Long durationMs, String message) {
        this(id, status, group, durationMs, message, null);
    }

    public TestCase withGroup(String g) { return new TestCase(id, status, g, durationMs, message, integrity); }

    public TestCase withIntegrity(String i) { return new TestCase(id, status, group, durationMs, message, i); }
}
