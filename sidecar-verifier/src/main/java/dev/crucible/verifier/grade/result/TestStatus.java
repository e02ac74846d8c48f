package dev.crucible.verifier.grade.result;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Outcome of one test as the report format gave it; {@code UNTRUSTED}: whatever was reported, the
 * grader could not trust the run it came from (an integrity finding), so it does not count.
 */
public enum TestStatus {
    PASSED, FAILED, ERROR, SKIPPED, XFAILED, XPASSED, MISSING, UNTRUSTED;

    /** Skipped and xfailed tests pass only where the environment says so; xpass ran its assertions. */
    public boolean counts(boolean skippedAsPassed) {
        return this == PASSED || this == XPASSED || (skippedAsPassed && (this == SKIPPED || this == XFAILED));
    }

    @JsonValue
    public String json() { return name().toLowerCase(); }
}
