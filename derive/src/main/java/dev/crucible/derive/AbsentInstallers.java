package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Installs through a package manager of another ecosystem that this machine does not have ({@code bundle install},
 * {@code gem install}, {@code conda install}, {@code brew install}): GitHub's runners carry Ruby, conda and brew;
 * here the line fails setup with "command not found" (fzf's {@code bundle install}, used only by its rubocop lint and
 * Ruby integration tests, stopped a Go project's unit tests). As for apt packages the machine lacks
 * ({@link SystemPackages}), the line is replaced by a message naming what is missing and setup goes on; the
 * baseline shows whether the tests needed it. Applied only where derive knows the machine (the local CLI).
 */
final class AbsentInstallers {
    private static final Set<String> INSTALLERS = Set.of("bundle", "gem", "conda", "mamba", "micromamba", "brew");

    private AbsentInstallers() {
    }

    static void apply(PlannedStep p) {
        if (p.disposition == Disposition.SETUP && p.script != null) {
            List<String> missing = new ArrayList<>();
            String rest = rewrite(p.script, missing);
            if (!missing.isEmpty()) {
                p.script = rest;
                p.notes.add(note(p, missing));
            }
        }
        if (!p.setupLines.isEmpty()) {
            List<String> missing = new ArrayList<>();
            String rest = rewrite(String.join("\n", p.setupLines), missing);
            if (!missing.isEmpty()) {
                p.setupLines.clear();
                rest.lines().filter(l -> !l.isBlank()).forEach(p.setupLines::add);
                p.notes.add(note(p, missing));
            }
        }
    }

    private static String note(PlannedStep p, List<String> missing) {
        return "step " + p.step.number() + " installs with " + String.join(", ", missing) + ", which this machine lacks: "
                + "setup says so and goes on (the baseline shows whether the tests need it)";
    }

    /** The script with each line that starts with an absent installer replaced by a message on stderr. */
    static String rewrite(String script, List<String> missing) {
        StringBuilder out = new StringBuilder();
        for (String line : script.split("\n", -1)) {
            String program = program(line);
            if (program != null && INSTALLERS.contains(program) && !onPath(program)) {
                if (!missing.contains(program)) missing.add(program);
                line = "echo " + ShellScripts.quote("crucible: " + program + " is not installed on this machine; skipped: "
                        + line.strip()) + " >&2";
            }
            out.append(line).append('\n');
        }
        return out.toString().stripTrailing();
    }

    /** The program a simple line runs (past {@code sudo} and {@code VAR=x}); null for anything else. */
    static String program(String line) {
        String[] words = line.strip().split("\\s+");
        for (String w : words) {
            if (w.equals("sudo") || w.matches("[A-Za-z_][A-Za-z0-9_]*=.*")) continue;
            return w.isEmpty() ? null : w;
        }
        return null;
    }

    static boolean onPath(String program) {
        try {
            Process p = new ProcessBuilder("bash", "-c", "command -v \"$1\"", "bash", program).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return true; // unknown: keep the line as CI has it
        }
    }
}
