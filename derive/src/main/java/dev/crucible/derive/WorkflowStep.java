package dev.crucible.derive;

import java.util.Map;

/**
 * One step of a job, values as written.
 *
 * @param number          1-based position in the job (how the report names steps)
 * @param line            line of the step's first key
 * @param runLine         line where the {@code run} text begins (the line after {@code run: |})
 * @param with            {@code with:} inputs of a {@code uses:} step
 */
record WorkflowStep(int number, int line, String id, String name, String ifCondition, String uses,
        Map<String, String> with, String run, int runLine, String shell, String workingDirectory,
        Map<String, String> env, String continueOnError, String timeoutMinutes) {

    /** The step as the report names it: its name, else what it uses, else its first command. */
    String label() {
        if (name != null && !name.isBlank()) {
            return name;
        }
        if (uses != null) {
            // Actions pinned to a commit read better with the short id, as GitHub shows them.
            return uses.matches(".*@[0-9a-f]{40}") ? uses.substring(0, uses.length() - 33) : uses;
        }
        String first = run == null ? "" : run.strip().lines().findFirst().orElse("");
        return first.length() > 60 ? first.substring(0, 57) + "..." : first;
    }
}
