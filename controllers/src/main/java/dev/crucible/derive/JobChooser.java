package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Picks the job to derive from: the one named, else the first that runs tests (then the first that lints). */
final class JobChooser {
    private JobChooser() {
    }

    static WorkflowJob choose(Workflow workflow, String wanted, List<String> notes) throws DerivationException {
        WorkflowJob job = wanted != null ? named(workflow, wanted) : firstTesting(workflow, notes);
        if (job.uses() != null) {
            throw new DerivationException(workflow.file(), job.id(), job.line(), "the job calls the reusable workflow "
                    + job.uses() + " and has no steps of its own: derive from that workflow file instead");
        }
        return job;
    }

    private static WorkflowJob named(Workflow workflow, String wanted) throws DerivationException {
        WorkflowJob byId = workflow.jobs().get(wanted);
        if (byId != null) {
            return byId;
        }
        for (WorkflowJob j : workflow.jobs().values()) {
            if (j.name() != null && j.name().equalsIgnoreCase(wanted)) {
                return j;
            }
        }
        throw new DerivationException(workflow.file(), wanted, workflow.jobsLine(), "no such job; the workflow has "
                + describe(workflow));
    }

    private static WorkflowJob firstTesting(Workflow workflow, List<String> notes) {
        WorkflowJob linting = null;
        for (WorkflowJob j : workflow.jobs().values()) {
            CommandKind k = strongest(j);
            if (k == CommandKind.TEST) {
                noteChoice(workflow, j, "the first job that runs tests", notes);
                return j;
            }
            if (k == CommandKind.LINT && linting == null) {
                linting = j;
            }
        }
        WorkflowJob j = linting != null ? linting : workflow.jobs().values().iterator().next();
        noteChoice(workflow, j, linting != null ? "no job runs tests; the first that lints" : "no job runs tests",
                notes);
        return j;
    }

    private static void noteChoice(Workflow workflow, WorkflowJob j, String why, List<String> notes) {
        if (workflow.jobs().size() > 1) {
            notes.add("no --job given: chose job '" + j.id() + "' (" + why + "); the workflow has "
                    + describe(workflow));
        }
    }

    /** What a job's run steps look like before any expression is resolved: enough to choose a job. */
    private static CommandKind strongest(WorkflowJob j) {
        CommandKind best = CommandKind.OTHER;
        for (WorkflowStep s : j.steps()) {
            List<CommandKind> kinds = new ArrayList<>();
            if (s.run() != null) {
                CommandClassifier.logicalLines(s.run()).forEach(l -> kinds.add(CommandClassifier.classifyLine(l).kind()));
            } else if (s.uses() != null && s.uses().startsWith("pre-commit/action")) {
                kinds.add(CommandKind.LINT);
            }
            for (CommandKind k : kinds) {
                if (StepPlanner.rank(k) > StepPlanner.rank(best)) {
                    best = k;
                }
            }
        }
        return best;
    }

    static String describe(Workflow workflow) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, WorkflowJob> e : workflow.jobs().entrySet()) {
            parts.add("'" + e.getKey() + "' (line " + e.getValue().line() + ")");
        }
        return (parts.size() == 1 ? "job " : "jobs ") + String.join(", ", parts);
    }
}
