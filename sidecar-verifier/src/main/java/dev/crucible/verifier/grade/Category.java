package dev.crucible.verifier.grade;

/** The four CodeRL outcome classes, from worst to best. */
public enum Category {
    BUILD_FAILED("build-failed", -1.0), RUNTIME_ERROR("runtime-error", -0.6), TESTS_FAILED("tests-failed", -0.3), PASSED("passed", 1.0);

    public final String label;
    public final double codeRl;

    Category(String label, double codeRl) {
        this.label = label;
        this.codeRl = codeRl;
    }
}
