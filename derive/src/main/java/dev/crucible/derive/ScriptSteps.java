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
    private static final Pattern CONTROL = Pattern.compile("(set|export|echo|printf|cd|pushd|popd|true|:)(\\s.*)?"
            + "|[A-Za-z_][A-Za-z0-9_]*=\\S*|(if|elif)\\s+(\\[|test)\\s.*(;\\s*then)?|then|else|fi");
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
            List<String> why = reasons(text, testText);
            if (why != null && !why.isEmpty()) {
                p.set(Disposition.DROPPED, "runs " + path + ", which neither builds what the tests use nor tests: "
                        + String.join("; ", why) + ", so setup skips it");
            }
        }
    }

    private static boolean shellScript(String text) {
        String first = text.lines().findFirst().orElse("").strip();
        if (!first.startsWith("#!")) {
            return true; // run through the step's shell
        }
        String interpreter = first.split("\\s+-")[0].strip();
        return SHELLS.contains(interpreter);
    }

    /** Each command with what it does, or null when one of them does something setup may need. */
    private static List<String> reasons(String text, String testText) {
        List<String> out = new ArrayList<>();
        for (String line : CommandClassifier.logicalLines(text)) {
            if (line.startsWith("#!") || CONTROL.matcher(line).matches()) {
                continue;
            }
            String command = PREFIX_VARIABLE.matcher(line).replaceFirst("");
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
