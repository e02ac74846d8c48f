package dev.crucible.contract;

import java.util.List;

/**
 * The values of a test-suite verifier's {@code framework}: how per-test results are read. One list for the
 * CRD's enum and the sidecar's spec check; each name but pytest, junit-xml and tap is one of the grader's runners.
 */
public final class TestFrameworks {
    public static final String PYTEST = "pytest";
    public static final String JUNIT_XML = "junit-xml";
    public static final String TAP = "tap";
    public static final String GO = "go";
    public static final String CARGO = "cargo";
    public static final String NEXTEST = "nextest";
    public static final String NODE_TEST = "node-test";
    public static final String JEST = "jest";
    public static final String VITEST = "vitest";
    public static final String MOCHA = "mocha";
    public static final String UNITTEST = "unittest";
    public static final String MAVEN = "maven";
    public static final String GRADLE = "gradle";

    /** Read by the grader itself, not by a runner of its own. */
    public static final List<String> BUILT_IN = List.of(PYTEST, JUNIT_XML, TAP);
    public static final List<String> ALL = List.of(PYTEST, JUNIT_XML, TAP, GO, CARGO, NEXTEST, NODE_TEST, JEST, VITEST, MOCHA,
            UNITTEST, MAVEN, GRADLE);

    private TestFrameworks() {}
}
