package dev.crucible.derive;

import java.util.List;

/**
 * The report line of one workflow step. Named as the RLEnvironment status's derived steps are.
 *
 * @param index    1-based position of the step in the job
 * @param line     line of the step in the workflow file
 * @param name     the step's name (expressions resolved), else what it uses, else its first command
 * @param decision what became of it
 * @param reason   why, in words a person can check against the workflow
 * @param notes    what else the user should know (secrets left out, expressions with no local value ...)
 */
public record StepReport(int index, int line, String name, Disposition decision, String reason, List<String> notes) {
    public StepReport {
        notes = List.copyOf(notes);
    }
}
