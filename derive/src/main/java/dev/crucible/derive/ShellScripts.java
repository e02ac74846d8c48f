package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes the derived bash: the setup script (every kept setup step in order, each in its own subshell
 * because each GitHub step runs in its own shell, so a {@code cd} or {@code export} in one step does not
 * leak into the next) and the verifier commands.
 */
final class ShellScripts {
    private static final String STEP_FILE_END = "CRUCIBLE_STEP_EOF";

    private ShellScripts() {
    }

    /** GitHub gives every step these; give them local values so steps that use them still work. */
    private static final String PREAMBLE = String.join("\n",
            "set -e",
            "# GitHub runners provide these to every step; give them local values.",
            "export GITHUB_WORKSPACE=\"${GITHUB_WORKSPACE:-$PWD}\" RUNNER_OS=Linux RUNNER_ARCH=X64",
            "export RUNNER_TEMP=\"${RUNNER_TEMP:-$(mktemp -d)}\"",
            "export GITHUB_ENV=\"${GITHUB_ENV:-$(mktemp)}\" GITHUB_PATH=\"${GITHUB_PATH:-$(mktemp)}\" "
                    + "GITHUB_OUTPUT=\"${GITHUB_OUTPUT:-$(mktemp)}\" GITHUB_STEP_SUMMARY=\"${GITHUB_STEP_SUMMARY:-$(mktemp)}\"");

    /** Applies what a step appended to $GITHUB_ENV / $GITHUB_PATH to the steps after it, as GitHub does. */
    private static final String APPLY_GITHUB_FILES = String.join("\n",
            "crucible_apply_github_files() {",
            "  while IFS= read -r crucible_line; do",
            "    case \"$crucible_line\" in *'<<'*) ;; *=*) export \"${crucible_line%%=*}=${crucible_line#*=}\" ;; esac",
            "  done < \"$GITHUB_ENV\"",
            "  while IFS= read -r crucible_line; do",
            "    [ -n \"$crucible_line\" ] && PATH=\"$crucible_line:$PATH\"",
            "  done < \"$GITHUB_PATH\"",
            "  export PATH; : > \"$GITHUB_ENV\"; : > \"$GITHUB_PATH\"",
            "}");

    private static final java.util.regex.Pattern PIP_GROUP = java.util.regex.Pattern.compile("\\bpip3?\\s+install\\b[^\n]*\\s--group\\b");

    static String setupScript(List<PlannedStep> steps) {
        List<PlannedStep> parts = new ArrayList<>();
        boolean usesGithubFiles = false;
        for (PlannedStep p : steps) {
            boolean contributes = p.disposition == Disposition.SETUP && p.script != null
                    || (p.disposition == Disposition.TEST || p.disposition == Disposition.LINT) && !p.setupLines.isEmpty();
            if (contributes) {
                parts.add(p);
                String text = p.disposition == Disposition.SETUP ? p.script : String.join("\n", p.setupLines);
                usesGithubFiles |= text.contains("GITHUB_ENV") || text.contains("GITHUB_PATH");
            }
        }
        StringBuilder out = new StringBuilder(PREAMBLE).append('\n');
        if (usesGithubFiles) {
            out.append(APPLY_GITHUB_FILES).append('\n');
        }
        if (parts.stream().anyMatch(p -> PIP_GROUP.matcher(p.disposition == Disposition.SETUP ? p.script : String.join("\n", p.setupLines)).find())) {
            // black: `pip install --group test` (PEP 735 dependency groups) is pip 25.1's; an older venv pip says "no such option"
            out.append("\n# pip install --group needs pip 25.1 or newer\npython -m pip install --quiet 'pip>=25.1'\n");
        }
        for (PlannedStep p : parts) {
            boolean whole = p.disposition == Disposition.SETUP;
            out.append('\n').append("# step ").append(p.step.number()).append(" (line ").append(p.step.line())
                    .append("): ").append(oneLine(p.displayLabel()))
                    .append(whole ? "" : " (its install commands; the rest is the " + role(p) + " command)")
                    .append('\n');
            out.append("(\n");
            body(out, p, whole ? p.script : String.join("\n", p.setupLines), whole ? p.shellTemplate : null);
            out.append(")\n");
            if (usesGithubFiles) {
                out.append("crucible_apply_github_files\n");
            }
        }
        if (parts.isEmpty()) {
            out.append("\n# The workflow job has no setup steps to keep.\n");
        }
        return withoutTrailingBlanks(out.toString());
    }

    /**
     * The verifier command for the given steps. One plain step stays one plain line ({@code pytest -q},
     * {@code cd backend && npm test}) so it reads like what CI runs; anything else becomes a small script.
     */
    static String command(List<PlannedStep> steps) {
        if (steps.size() == 1) {
            PlannedStep p = steps.get(0);
            List<String> lines = CommandClassifier.logicalLines(p.commandScript);
            String line = lines.size() == 1 ? lines.get(0) : "";
            boolean simple = !line.contains("|") && !line.contains("&&") && !line.contains(";")
                    && !line.contains("||");
            if (lines.size() == 1 && p.shellTemplate == null && !CommandClassifier.isStructured(p.commandScript)
                    && (p.env.isEmpty() || simple) && !(p.pipefail && line.contains("|"))
                    && !needsPreamble(p.commandScript)) {
                // Step env as assignments in front of the command keeps it one line (and scoped to it).
                StringBuilder env = new StringBuilder();
                p.env.forEach((k, v) -> env.append(k).append('=').append(quote(v)).append(' '));
                return ((p.workingDirectory != null ? "cd " + quote(p.workingDirectory) + " && " : "") + env + line).strip();
            }
        }
        StringBuilder out = new StringBuilder("set -e\n");
        boolean preamble = steps.stream().anyMatch(p -> needsPreamble(p.commandScript));
        if (preamble) {
            out.append("export GITHUB_WORKSPACE=\"${GITHUB_WORKSPACE:-$PWD}\" RUNNER_TEMP=\"${RUNNER_TEMP:-$(mktemp -d)}\"\n");
        }
        for (PlannedStep p : steps) {
            out.append("# step ").append(p.step.number()).append(" (line ").append(p.step.line()).append("): ")
                    .append(oneLine(p.displayLabel())).append('\n');
            if (steps.size() == 1) {
                body(out, p, p.commandScript, p.shellTemplate);
            } else {
                out.append("(\n");
                body(out, p, p.commandScript, p.shellTemplate);
                out.append(")\n");
            }
        }
        return withoutTrailingBlanks(out.toString());
    }

    /**
     * Test steps whose lines are all plain runner lines (no pipes, expansions or chaining; no other
     * shell, the same working folder), two or more in all: the lines one after the other, each with its
     * step's variables in front, so the grader can grade each line per test. Empty otherwise.
     */
    static java.util.Optional<String> runnerLines(List<PlannedStep> steps, java.util.function.Predicate<String> perTest) {
        if (steps.isEmpty()) return java.util.Optional.empty();
        String wd = steps.get(0).workingDirectory;
        StringBuilder out = new StringBuilder();
        if (wd != null && !wd.isBlank() && !wd.equals(".")) out.append("cd ").append(quote(wd)).append('\n');
        int lines = 0;
        for (PlannedStep p : steps) {
            if (p.shellTemplate != null || !java.util.Objects.equals(p.workingDirectory, wd) || needsPreamble(p.commandScript)) {
                return java.util.Optional.empty();
            }
            for (String line : CommandClassifier.logicalLines(p.commandScript)) {
                CommandClassifier.Classified c = CommandClassifier.classifyLine(line);
                if (line.matches("(?s).*[|;&$`<>(){}\\\\].*") || c.kind() != CommandKind.TEST || !perTest.test(c.what())) {
                    return java.util.Optional.empty();
                }
                p.env.forEach((k, v) -> out.append(k).append('=').append(quote(v)).append(' '));
                out.append(line.strip()).append('\n');
                lines++;
            }
        }
        return lines < 2 ? java.util.Optional.empty() : java.util.Optional.of(out.toString().strip());
    }

    /**
     * Drops blanks at line ends (an expression that resolved to nothing leaves one): they mean nothing to
     * the shell, and YAML can print a script without them as a readable literal block.
     */
    private static String withoutTrailingBlanks(String script) {
        return script.replaceAll("[ \t]+\n", "\n");
    }

    private static boolean needsPreamble(String script) {
        return script.contains("GITHUB_WORKSPACE") || script.contains("RUNNER_TEMP") || script.contains("GITHUB_ENV")
                || script.contains("GITHUB_PATH") || script.contains("GITHUB_OUTPUT") || script.contains("GITHUB_STEP_SUMMARY");
    }

    static void body(StringBuilder out, PlannedStep p, String script, String shellTemplate) {
        if (p.workingDirectory != null) {
            out.append("cd ").append(quote(p.workingDirectory)).append('\n');
        }
        for (Map.Entry<String, String> e : p.env.entrySet()) {
            out.append("export ").append(e.getKey()).append('=').append(quote(e.getValue())).append('\n');
        }
        if (shellTemplate == null) {
            if (p.pipefail) {
                out.append("set -o pipefail\n");
            }
            out.append(script.endsWith("\n") ? script : script + "\n");
            return;
        }
        // Other shells get the step as a file, as GitHub runs them: `sh -e {0}`, `python {0}`, `bash -l {0}`.
        out.append("crucible_step=\"$(mktemp)\"\n");
        out.append("cat > \"$crucible_step\" <<'").append(STEP_FILE_END).append("'\n");
        out.append(script.endsWith("\n") ? script : script + "\n");
        out.append(STEP_FILE_END).append('\n');
        out.append(shellTemplate.replace("{0}", "\"$crucible_step\"")).append('\n');
    }

    private static String role(PlannedStep p) {
        return p.disposition == Disposition.TEST ? "test" : "lint";
    }

    private static String oneLine(String s) {
        return s.replace('\n', ' ');
    }

    /** Variables that expressions such as github.workspace turn into; they must expand where they run. */
    private static final java.util.List<String> RUNTIME_VARIABLES = java.util.List.of("${GITHUB_WORKSPACE}",
            "${RUNNER_TEMP}", "${RUNNER_TOOL_CACHE}");

    /**
     * Quotes a value for bash: literally (GitHub never shell-expands env values or directories), except
     * for the runtime variables expressions were resolved to, which are left to expand.
     */
    static String quote(String s) {
        if (!s.isEmpty() && s.matches("[A-Za-z0-9_./:@%+=,-]+")) {
            return s;
        }
        if (RUNTIME_VARIABLES.stream().anyMatch(s::contains)) {
            String escaped = s.replace("\\", "\\\\").replace("\"", "\\\"").replace("`", "\\`").replace("$", "\\$");
            for (String v : RUNTIME_VARIABLES) {
                escaped = escaped.replace("\\" + v, v);
            }
            return "\"" + escaped + "\"";
        }
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
