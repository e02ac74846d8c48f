package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Picks the job to derive from: the one named, else the first that runs tests (then the first that lints). */
final class JobChooser {
    private JobChooser() {
    }

    static WorkflowJob choose(Workflow workflow, String wanted, List<String> notes) throws DerivationException {
        return choose(workflow, wanted, notes, path -> null);
    }

    /**
     * The named job, else the first that runs tests, else the first that lints, else the first. When it
     * chose, a note says why and what every other job runs, so a wrong choice is easy to spot and fix.
     *
     * @param readFile reads repository files (Makefiles, for targets named for nothing)
     */
    static WorkflowJob choose(Workflow workflow, String wanted, List<String> notes, Function<String, String> readFile)
            throws DerivationException {
        WorkflowJob job = wanted != null ? named(workflow, wanted) : firstTesting(workflow, notes, readFile);
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
        // as GitHub shows it: `Test (${{ matrix.python }})` is listed as `Test (3.12)`, the name a user copies
        for (WorkflowJob j : workflow.jobs().values()) {
            if (j.name() != null && ExpressionTemplates.hasExpression(j.name()) && shownAs(j.name()).matcher(wanted.strip()).matches()) {
                return j;
            }
        }
        throw new DerivationException(workflow.file(), wanted, workflow.jobsLine(), "no such job; the workflow has "
                + describe(workflow));
    }

    /**
     * A job name with its {@code ${{ … }}} expressions as GitHub fills them in: each stands for one word (no
     * whitespace), whatever it holds (spaces, quotes, a '}}' in a string); runs of whitespace match any whitespace.
     */
    static Pattern shownAs(String name) {
        String text = name.strip();
        StringBuilder re = new StringBuilder();
        int i = 0;
        while (true) {
            int start = text.indexOf("${{", i);
            int end = start < 0 ? -1 : ExpressionTemplates.closing(text, start + 3);
            String literal = end < 0 ? text.substring(i) : text.substring(i, start);
            Matcher space = SPACE.matcher(literal);
            int from = 0;
            while (space.find()) {
                re.append(Pattern.quote(literal.substring(from, space.start()))).append("\\s+");
                from = space.end();
            }
            re.append(Pattern.quote(literal.substring(from)));
            if (end < 0) break;
            re.append("\\S*"); // an empty value leaves nothing: `Test ()`
            i = end + 2;
        }
        return Pattern.compile(re.toString(), Pattern.CASE_INSENSITIVE);
    }

    private static final Pattern SPACE = Pattern.compile("\\s+");

    private static WorkflowJob firstTesting(Workflow workflow, List<String> notes, Function<String, String> readFile) {
        Map<String, CommandClassifier.Classified> runs = new LinkedHashMap<>();
        WorkflowJob testing = null;
        WorkflowJob onLinux = null;
        WorkflowJob linting = null;
        WorkflowJob typeChecking = null;
        for (WorkflowJob j : workflow.jobs().values()) {
            CommandClassifier.Classified k = strongest(j, readFile);
            runs.put(j.id(), k);
            if (k.kind() == CommandKind.TEST && j.uses() == null && CheckOnlyRuns.only(k.what(), readFile)) {
                if (typeChecking == null) typeChecking = j;
            } else if (k.kind() == CommandKind.TEST && j.uses() == null) {
                if (testing == null) testing = j;
                if (onLinux == null && !onOtherOs(j)) onLinux = j;
            } else if (k.kind() == CommandKind.LINT && linting == null && j.uses() == null) {
                linting = j;
            }
        }
        // a macOS or Windows job first in the file (deno's test-debug-macos-x86_64) loses to a Linux one that also tests
        boolean linuxLater = onLinux != null && onLinux != testing;
        testing = onLinux != null ? onLinux : testing;
        // a job whose only test run type-checks or builds docs (marshmallow's 'mypy': tox -e mypy-test; 'docs': tox -e docs)
        // is taken only when no other job tests
        boolean typeCheckOnly = testing == null && typeChecking != null;
        testing = testing != null ? testing : typeChecking;
        WorkflowJob j = testing != null ? testing : linting != null ? linting : workflow.jobs().values().iterator().next();
        String why = testing != null ? (typeCheckOnly ? "no other job runs tests; the first that type-checks or builds docs through tox/nox"
                : "the first job that runs tests" + (linuxLater ? " on Linux" : "")) + " (" + runs.get(j.id()).what() + ")"
                : linting != null ? "no job runs tests; the first that lints (" + runs.get(j.id()).what() + ")"
                : "no job runs tests or lints: the first job";
        if (workflow.jobs().size() > 1) {
            List<String> others = new ArrayList<>();
            for (WorkflowJob o : workflow.jobs().values()) {
                if (o != j) {
                    others.add("'" + o.id() + "' (line " + o.line() + ") " + whatItRuns(o, runs.get(o.id()), readFile));
                }
            }
            notes.add("no --job given: chose job '" + j.id() + "' (line " + j.line() + "): " + why + "; the other jobs: "
                    + String.join(", ", others));
        }
        return j;
    }

    /**
     * runs-on names macOS or Windows, expressions resolved as for a push (deno's test-release-macos-x86_64 is
     * ubuntu only on pull requests); one that depends on the matrix is left to the matrix chooser.
     */
    private static boolean onOtherOs(WorkflowJob j) {
        if (j.runsOn() == null) return false;
        String text = ExpressionValues.text(j.runsOn());
        if (text.contains("matrix.")) return false;
        try {
            text = ExpressionTemplates.substitute(text, new ExpressionContext(Map.of(), Map.of(), null)).text();
        } catch (RuntimeException e) { // a syntax error, or a context it cannot resolve: not known to be another OS
            return false;
        }
        return MatrixChooser.NOT_LINUX.matcher(text).matches();
    }

    private static String whatItRuns(WorkflowJob j, CommandClassifier.Classified k, Function<String, String> readFile) {
        if (j.uses() != null) {
            return "calls the reusable workflow " + j.uses();
        }
        return switch (k.kind()) {
            case TEST -> CheckOnlyRuns.only(k.what(), readFile) ? "only type-checks or builds docs (" + k.what() + ")" : "also runs tests (" + k.what() + ")";
            case LINT -> "lints (" + k.what() + ")";
            case CI_ONLY -> "publishes (" + k.what() + ")";
            default -> "runs no tests";
        };
    }

    /** What a job's run steps look like before any expression is resolved: enough to choose a job. */
    private static CommandClassifier.Classified strongest(WorkflowJob j, Function<String, String> readFile) {
        CommandClassifier.Classified best = CommandClassifier.other();
        for (WorkflowStep s : j.steps()) {
            List<CommandClassifier.Classified> kinds = new ArrayList<>();
            if (s.run() != null) {
                MakeRecipes recipes = new MakeRecipes(readFile, s.workingDirectory() != null
                        && !s.workingDirectory().contains("${{") ? s.workingDirectory() : null);
                CommandClassifier.logicalLines(s.run()).forEach(l -> kinds.add(CommandClassifier.classifyLine(l, recipes)));
            } else if (s.uses() != null && s.uses().startsWith("pre-commit/action")) {
                kinds.add(CommandClassifier.lint("pre-commit/action"));
            }
            for (CommandClassifier.Classified k : kinds) {
                if (StepPlanner.rank(k.kind()) > StepPlanner.rank(best.kind())) {
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
