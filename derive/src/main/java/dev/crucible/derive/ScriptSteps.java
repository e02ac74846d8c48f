package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A setup step that only runs one of the repository's own shell scripts ({@code scripts/build},
 * {@code bash ci/lint.sh}) is judged by what the script runs: when every command in it lints, builds
 * documentation or distributions (and checks them), or only reports to CI, and the tests read nothing it
 * writes, setup leaves the step out and the report says which commands made it so (encode/httpx's
 * {@code scripts/build} ends in {@code twine check dist/*}, which fails here and is no part of testing).
 * A script with anything else in it (an install, a code generator, a control structure around real work)
 * is kept whole: a line of it cannot be dropped without changing what the rest does.
 */
final class ScriptSteps {
    /** {@code [bash|sh] [./]path/to/script[.sh]} with no arguments that could change what it runs. */
    private static final Pattern RUNS_SCRIPT = Pattern.compile("((ba|da)?sh\\s+)?(\\./)?([A-Za-z0-9_./-]+)");
    /** Shell lines that only steer the script ({@code set -x}, {@code PREFIX="venv/bin/"}, {@code if [ -d venv ]}). */
    private static final Pattern CONTROL = Pattern.compile("(set|export|echo|printf|cd|pushd|popd|true|:|exit)(\\s.*)?"
            + "|[A-Za-z_][A-Za-z0-9_]*=\\S*|(if|elif)\\s+(\\[|test)\\s.*(;\\s*then)?|then|else|fi");
    /** Commands that only read files: a script of these and control lines checks something and changes nothing. */
    private static final Pattern READS_ONLY = Pattern.compile("(grep|egrep|fgrep|head|tail|cat|wc|cut|sort|uniq|diff|cmp|test|sed -n)(\\s.*)?");
    /** {@code NAME=$(a | b)}: an assignment from a command substitution. */
    private static final Pattern ASSIGN_OUTPUT = Pattern.compile("(?:export\\s+)?[A-Za-z_][A-Za-z0-9_]*=\\$\\((.*)\\)");
    private static final int DEPTH = 3;
    /** A variable glued in front of a program, as in {@code ${PREFIX}twine check}: the program is what follows. */
    private static final Pattern PREFIX_VARIABLE = Pattern.compile("^(\\$\\{[A-Za-z_][A-Za-z0-9_]*}|\\$[A-Za-z_][A-Za-z0-9_]*)+");
    private static final Set<String> SHELLS = Set.of("#!/bin/sh", "#!/bin/bash", "#!/usr/bin/env bash", "#!/usr/bin/env sh");

    private ScriptSteps() {
    }

    static void prune(List<PlannedStep> steps, String testText, Function<String, String> readFile) {
        for (PlannedStep p : steps) {
            if (p.disposition != Disposition.SETUP || p.script == null || p.producesArtifact) {
                continue;
            }
            List<String> lines = CommandClassifier.logicalLines(p.script);
            if (lines.size() != 1) {
                continue;
            }
            var m = RUNS_SCRIPT.matcher(lines.get(0).strip());
            if (!m.matches() || (m.group(1) == null && m.group(3) == null && !m.group(4).contains("/"))) {
                continue; // a bare word is a program on PATH, not a file of the repository
            }
            String path = m.group(4);
            String text = readFile.apply(p.workingDirectory == null ? path : p.workingDirectory + "/" + path);
            if (text == null || !shellScript(text)) {
                continue;
            }
            List<String> why = reasons(text, testText, readFile, p.workingDirectory, 0);
            if (why != null) {
                p.set(Disposition.DROPPED, "runs " + path + ", which neither builds what the tests use nor tests: "
                        + (why.isEmpty() ? "it only reads and compares files" : String.join("; ", why)) + ", so setup skips it");
            }
        }
    }

    /** A command (or an assignment from one) that only reads: no redirection into a file, no sed -i. */
    private static boolean readsOnly(String line) {
        var a = ASSIGN_OUTPUT.matcher(line);
        String command = a.matches() ? a.group(1) : line;
        if (writes(command) || command.contains("$(") || command.contains("`")) {
            return false;
        }
        for (String part : command.split("\\|")) {
            if (!READS_ONLY.matcher(part.strip()).matches()) {
                return false;
            }
        }
        return true;
    }

    /** Whether the line redirects output into a file (not /dev/null or another descriptor). */
    private static boolean writes(String line) {
        return line.replaceAll("[0-9]?>>?\\s*(/dev/null|&[12])", "").contains(">");
    }

    private static boolean shellScript(String text) {
        String first = text.lines().findFirst().orElse("").strip();
        if (!first.startsWith("#!")) {
            return true; // run through the step's shell
        }
        String interpreter = first.split("\\s+-")[0].strip();
        return SHELLS.contains(interpreter);
    }

    /**
     * Each command with what it does, or null when one of them does something setup may need. An empty list: the
     * script only steers itself and reads files (a consistency check such as httpx's scripts/sync-version).
     */
    private static List<String> reasons(String text, String testText, Function<String, String> readFile, String dir, int depth) {
        List<String> out = new ArrayList<>();
        for (String line : CommandClassifier.logicalLines(text)) {
            if (line.startsWith("#!") || (CONTROL.matcher(line).matches() && !writes(line)) || readsOnly(line)) {
                continue;
            }
            String command = PREFIX_VARIABLE.matcher(line).replaceFirst("");
            var nested = RUNS_SCRIPT.matcher(command);
            if (nested.matches() && nested.group(4).contains("/") && depth < DEPTH) {
                String path = nested.group(4);
                String inner = readFile.apply(dir == null ? path : dir + "/" + path);
                List<String> why = inner == null || !shellScript(inner) ? null : reasons(inner, testText, readFile, dir, depth + 1);
                if (why == null) {
                    return null;
                }
                out.add("runs " + path + (why.isEmpty() ? ", which only reads and compares files" : " (" + String.join("; ", why) + ")"));
                continue;
            }
            Byproducts.Made made = Byproducts.of(command, testText);
            if (made != null) {
                if (made.output() != null && testText.contains(made.output().replaceAll("/$", ""))) {
                    return null; // the tests read what it makes
                }
                out.add(made.what() + " (" + command + ")");
                continue;
            }
            CommandClassifier.Classified c = CommandClassifier.classifyLine(command);
            if (c.kind() == CommandKind.LINT) {
                out.add("lints (" + command + ")");
            } else if (c.kind() == CommandKind.CI_ONLY) {
                out.add("reports to CI only (" + command + ")");
            } else {
                return null;
            }
        }
        return out;
    }
}
