package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A step on its way into the environment: the workflow step with its expressions resolved for the
 * chosen job and matrix combination, what its commands were recognised as, and (once roles are
 * assigned) what became of it. Mutable only while a derivation is being built.
 */
final class PlannedStep {
    final WorkflowStep step;
    Disposition disposition;
    String reason;
    final List<String> notes = new ArrayList<>();

    /** The run script with expressions resolved; null for uses: steps. */
    String script;
    /** How to run {@link #script}: null for the default bash, else a command with {0} for the script file. */
    String shellTemplate;
    /** Whether bash runs it with pipefail ({@code shell: bash}), as GitHub does. */
    boolean pipefail;
    String workingDirectory;
    /** Step-level env to export (values resolved; secrets already left out). */
    final Map<String, String> env = new LinkedHashMap<>();
    /** What its commands were recognised as (strongest kind over its lines). */
    CommandKind kind = CommandKind.OTHER;
    String recognised;
    /**
     * The command is one {@code a && b && runner} chain whose last command is the recognised runner (a
     * tool's documented test sequence written out): graded per test, the commands before it must pass first.
     */
    boolean runnerLast;
    /** Install commands that came before the test/lint command in the same step: they go to setup. */
    final List<String> setupLines = new ArrayList<>();
    /** What runs as the test or lint command (the whole script unless install lines were split off). */
    String commandScript;
    /** The mapping of a uses: step. */
    ActionMapping.Outcome action;
    /** Toolchains asked for by actions inside a local composite action this step uses. */
    final List<ActionMapping.Outcome> nestedToolchains = new ArrayList<>();
    boolean continueOnError;
    /** Variables this step needs from the user (secrets, vars); they count only if the step is kept. */
    final java.util.Set<String> userEnv = new java.util.LinkedHashSet<>();
    /** The secrets.* names its env, with: or run: refer to (a subset of what {@link #userEnv} is for). */
    final java.util.Set<String> secretRefs = new java.util.LinkedHashSet<>();
    Integer timeoutMinutes;
    /** Set when the step runs a needed job's steps to make an artifact the job downloads: never pruned. */
    boolean producesArtifact;

    PlannedStep(WorkflowStep step) {
        this.step = step;
    }

    void set(Disposition d, String why) {
        disposition = d;
        reason = why;
    }

    /** The step's label with its expressions resolved ("Set up Python 3.11"), set by the planner. */
    String label;

    String displayLabel() {
        return label != null ? label : step.label();
    }

    boolean undecided() {
        return disposition == null;
    }

    StepReport report() {
        return new StepReport(step.number(), step.line(), displayLabel(), disposition, reason, notes);
    }
}
