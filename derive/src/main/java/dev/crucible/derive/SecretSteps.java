package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Steps that need the repository's secrets are about reporting or publishing, never about building or
 * running the tests: a derived environment has no secrets, and CI's forks (pull requests from other
 * repositories) run without them too. Run before {@link StepRoles}:
 * <ul>
 *   <li>a test step that pipes its runner into another program and refers to secrets (syncthing:
 *       {@code go run build.go test | go-test-json-to-loki}, LOKI_* from secrets) loses the stages after the
 *       runner, and with them its need for the secrets;</li>
 *   <li>a run step in setup (neither test, lint, install, upload nor a package index's configuration) that refers to
 *       secrets is dropped with the names it wanted; an inlined local composite action is not (it bundles the project's
 *       whole setup, and a secret input reaches one of its steps only);</li>
 *   <li>a step that only installs a program used by nothing but such a cut stage is dropped
 *       ({@code go install calmh.dev/go-test-json-to-loki@latest}, which this machine's Go proxy refuses).</li>
 * </ul>
 * {@code secrets.GITHUB_TOKEN} does not count: every CI run has it, and steps pass it for rate limits.
 */
final class SecretSteps {
    private SecretSteps() {
    }

    /** Package-index credentials (a private index the installs read): kept, the user provides the secret. */
    private static final java.util.regex.Pattern INDEX_CONFIG = java.util.regex.Pattern.compile(
            "\\b(pip3?|npm|pnpm|yarn|poetry|uv|pdm|cargo|bundle)\\s+config\\b|\\.npmrc|pip\\.conf|\\.netrc|\\.pypirc");

    static void apply(List<PlannedStep> steps, java.util.function.Function<String, String> readFile) {
        Set<String> cutPrograms = new LinkedHashSet<>();
        for (PlannedStep p : steps) {
            if (!p.undecided() || p.script == null || secrets(p).isEmpty()) {
                continue;
            }
            if (p.kind == CommandKind.TEST) {
                cutAfterRunner(p, new MakeRecipes(readFile, p.workingDirectory), cutPrograms);
            } else if (p.step.uses() == null && p.kind == CommandKind.OTHER && !INDEX_CONFIG.matcher(p.script).find()) {
                p.set(Disposition.DROPPED, "refers to " + String.join(", ", secrets(p))
                        + ": a step that needs secrets reports or publishes, it neither builds nor tests");
                p.userEnv.clear();
            }
        }
        if (cutPrograms.isEmpty()) {
            return;
        }
        for (PlannedStep p : steps) {
            if (p.undecided() && p.script != null && p.kind != CommandKind.TEST && installsOnly(p.script, cutPrograms)) {
                p.set(Disposition.DROPPED, "installs " + String.join(", ", cutPrograms)
                        + ", which only a pipeline stage cut for needing secrets used");
            }
        }
    }

    private static List<String> secrets(PlannedStep p) {
        return p.secretRefs.stream().filter(s -> !s.equalsIgnoreCase("secrets.GITHUB_TOKEN")).toList();
    }

    /** Cuts {@code runner | consumer ...} down to the runner on each line whose runner is a test command. */
    private static void cutAfterRunner(PlannedStep p, MakeRecipes recipes, Set<String> cutPrograms) {
        if (p.shellTemplate != null || CommandClassifier.isStructured(p.commandScript)) {
            return;
        }
        List<String> out = new ArrayList<>();
        List<String> cut = new ArrayList<>();
        for (String line : CommandClassifier.logicalLines(p.commandScript)) {
            List<String> stages = pipeStages(line);
            int runner = -1;
            for (int i = 0; i < stages.size(); i++) {
                if (CommandClassifier.classifyLine(stages.get(i), recipes).kind() == CommandKind.TEST) {
                    runner = i;
                }
            }
            if (runner < 0 || runner == stages.size() - 1) {
                out.add(line);
                continue;
            }
            out.add(String.join(" | ", stages.subList(0, runner + 1)));
            for (String stage : stages.subList(runner + 1, stages.size())) {
                cut.add(stage);
                String[] words = stage.split("\\s+");
                String program = words[0].substring(words[0].lastIndexOf('/') + 1);
                if (!program.isEmpty()) {
                    cutPrograms.add(program);
                }
            }
        }
        if (cut.isEmpty()) {
            return;
        }
        p.commandScript = String.join("\n", out);
        p.script = p.setupLines.isEmpty() ? p.commandScript : p.script;
        p.notes.add("left out of the test command: `| " + String.join(" | ", cut) + "`, which needs "
                + String.join(", ", secrets(p)) + " (reporting, not testing)");
        p.userEnv.clear();
    }

    /** A line's pipeline stages, split at a single {@code |} outside quotes ({@code ||} is not a pipe). */
    static List<String> pipeStages(String line) {
        List<String> stages = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '|' && (i + 1 >= line.length() || line.charAt(i + 1) != '|')
                    && (i == 0 || line.charAt(i - 1) != '|')) {
                stages.add(cur.toString().strip());
                cur.setLength(0);
                continue;
            }
            cur.append(c);
        }
        stages.add(cur.toString().strip());
        return stages;
    }

    /** Whether every line of the script installs one of the programs (go install path/prog@v, cargo install prog ...). */
    private static boolean installsOnly(String script, Set<String> programs) {
        List<String> lines = CommandClassifier.logicalLines(script);
        if (lines.isEmpty()) {
            return false;
        }
        for (String line : lines) {
            String lower = line.toLowerCase(Locale.ROOT);
            boolean install = lower.matches(".*\\b(go|cargo|pip3?|npm|pnpm|yarn|uv|pipx|gem)\\s+(install|i|add|tool\\s+install)\\b.*");
            boolean names = programs.stream().anyMatch(prog -> line.matches(".*(^|[\\s/])"
                    + java.util.regex.Pattern.quote(prog) + "(@\\S*)?(\\s.*)?$"));
            if (!install || !names) {
                return false;
            }
        }
        return true;
    }
}
