package dev.crucible.derive;

import java.util.List;

/**
 * The report line of one workflow step.
 *
 * @param number      1-based position of the step in the job
 * @param line        line of the step in the workflow file
 * @param label       the step's name, else what it uses, else its first command
 * @param disposition what became of it
 * @param reason      why, in words a person can check against the workflow
 * @param notes       what else the user should know (secrets left out, expressions with no local value ...)
 */
public record StepReport(int number, int line, String label, Disposition disposition, String reason,
        List<String> notes) {
    public StepReport {
        notes = List.copyOf(notes);
    }
}
