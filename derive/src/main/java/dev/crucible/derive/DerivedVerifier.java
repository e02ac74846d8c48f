package dev.crucible.derive;

import java.util.List;

/**
 * A verifier taken from the workflow: the test command (or the lint command).
 *
 * @param name           "tests" or "lint"
 * @param type           "test-suite" when results can be read per test, else "execution" (exit code)
 * @param framework      "pytest" or "junit-xml" for test-suite verifiers, null for execution
 * @param command        bash to run from the workspace root
 * @param reportPath     where junit-xml results appear (a glob relative to the workspace), null otherwise
 * @param timeoutSeconds from the steps' or job's timeout-minutes, else a default
 * @param steps          the workflow step numbers it came from, in order
 */
public record DerivedVerifier(String name, String type, String framework, String command, String reportPath,
        int timeoutSeconds, List<Integer> steps) {
    public DerivedVerifier {
        steps = List.copyOf(steps);
    }
}
