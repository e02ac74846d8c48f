package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Takes coverage measurement out of the test command: {@code coverage run -m pytest} becomes {@code python
 * -m pytest}, {@code pytest --cov=pkg} loses its --cov options, {@code go test} its -cover flags, and {@code coverage
 * xml/report} lines go, {@code cargo llvm-cov} becomes {@code cargo test} (and setup no longer builds cargo-llvm-cov).
 * Grading runs the tests in a read-only tree, where coverage cannot write its data file, and a reward
 * depends on the tests passing, not on how much they cover. Also makes a plain pytest run per-test gradable.
 */
final class CoverageWrappers {
    private static final Set<String> COVERAGE_OPTIONS_WITH_VALUE = Set.of("--source", "--rcfile", "--include",
            "--omit", "--data-file", "--concurrency", "--context");
    private static final Set<String> COV_OPTIONS_WITH_VALUE = Set.of("--cov-report", "--cov-config",
            "--cov-fail-under", "--cov-context");

    /** cargo-llvm-cov's own options (reports, thresholds) that cargo test does not take, with a value. */
    private static final Set<String> LLVM_COV_WITH_VALUE = Set.of("--output-path", "--output-dir", "--ignore-filename-regex",
            "--fail-under-lines", "--fail-under-functions", "--fail-under-regions", "--fail-uncovered-lines",
            "--fail-uncovered-regions", "--fail-uncovered-functions", "--dep-coverage", "--codecov-format");
    /** cargo-llvm-cov's own options without a value. */
    private static final Set<String> LLVM_COV_FLAGS = Set.of("--lcov", "--json", "--html", "--text", "--open", "--cobertura",
            "--codecov", "--summary-only", "--no-report", "--no-clean", "--show-instantiations", "--hide-instantiations",
            "--branch", "--mcdc", "--include-build-script", "--no-cfg-coverage", "--no-cfg-coverage-nightly",
            "--ignore-run-fail", "--include-ffi", "--show-missing-lines", "--skip-functions", "--coverage-target-only");
    /** Coverage tools built from source in setup, and the word a test command that still uses one contains. */
    private static final Map<String, String> COVERAGE_CRATES = Map.of("cargo-llvm-cov", "llvm-cov", "cargo-tarpaulin", "tarpaulin");

    private CoverageWrappers() {
    }

    /**
     * starship: {@code taiki-e/install-action} (tool: cargo-llvm-cov) became {@code cargo install --locked cargo-llvm-cov}
     * in setup, over 200 s of compiling at this machine's load, for a tool the test command no longer runs once
     * {@link #strip} made {@code cargo llvm-cov} a {@code cargo test}. A setup step that only installs coverage tools no
     * kept test command runs is dropped with that reason.
     */
    static void dropUnusedTools(List<PlannedStep> steps, List<PlannedStep> tests) {
        StringBuilder testText = new StringBuilder();
        for (PlannedStep t : tests) testText.append(t.commandScript == null ? "" : t.commandScript).append('\n');
        for (PlannedStep p : steps) {
            if (p.disposition != Disposition.SETUP) continue;
            String script = p.action != null && p.action.command() != null ? p.action.command() : p.script;
            if (script == null) continue;
            List<String> lines = CommandClassifier.logicalLines(script);
            List<String> tools = new ArrayList<>();
            for (String line : lines) {
                String tool = installedCoverageCrate(line);
                if (tool == null || testText.toString().contains(COVERAGE_CRATES.get(tool))) {
                    tools.clear();
                    break;
                }
                tools.add(tool);
            }
            if (!tools.isEmpty()) {
                p.set(Disposition.DROPPED, "installs " + String.join(", ", tools) + ", a coverage tool the test command no "
                        + "longer runs (grading leaves coverage out), so setup skips it");
            }
        }
    }

    /** The coverage crate a line only installs ({@code [command -v X >/dev/null ||] cargo install [opts] X[@v]}), else null. */
    private static String installedCoverageCrate(String line) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:command -v (\\S+) >/dev/null \\|\\| )?cargo\\s+(?:\\+\\S+\\s+)?"
                + "(?:install|binstall)((?:\\s+--?[\\w-]+)*)\\s+(cargo-[\\w-]+)(?:@\\S+)?((?:\\s+--?[\\w-]+)*)").matcher(line.strip());
        return m.matches() && COVERAGE_CRATES.containsKey(m.group(3)) ? m.group(3) : null;
    }

    /**
     * {@code cargo [+tc] llvm-cov [test] OPTS [-- ARGS]} → {@code cargo [+tc] test OPTS [-- ARGS]} without llvm-cov's report
     * options; {@code llvm-cov nextest} → {@code nextest run}; a report-only line ({@code report}, {@code clean}) → null;
     * anything else, or not cargo llvm-cov, unchanged (returned as is).
     */
    static String withoutLlvmCov(String line, String[] w) {
        int k = w.length > 1 && w[1].startsWith("+") ? 2 : 1;
        if (!w[0].equals("cargo") || w.length <= k || !w[k].equals("llvm-cov")) return line;
        List<String> out = new ArrayList<>(List.of(w).subList(0, k));
        int j = k + 1;
        String sub = j < w.length ? w[j] : "";
        if (Set.of("report", "clean", "show-env").contains(sub)) return null;
        if (sub.equals("run")) return line;
        if (sub.equals("nextest")) {
            out.addAll(List.of("nextest", "run"));
            j++;
        } else {
            out.add("test");
            if (sub.equals("test")) j++;
        }
        for (; j < w.length; j++) {
            if (w[j].equals("--")) {
                out.addAll(List.of(w).subList(j, w.length));
                break;
            }
            if (LLVM_COV_FLAGS.contains(w[j])) continue;
            if (LLVM_COV_WITH_VALUE.contains(w[j])) {
                j++;
                continue;
            }
            if (w[j].contains("=") && LLVM_COV_WITH_VALUE.contains(w[j].substring(0, w[j].indexOf('=')))) continue;
            out.add(w[j]);
        }
        return String.join(" ", out);
    }

    static void strip(List<PlannedStep> tests) {
        for (PlannedStep p : tests) {
            if (p.shellTemplate != null || p.commandScript == null || CommandClassifier.isStructured(p.commandScript)) {
                continue;
            }
            List<String> out = new ArrayList<>();
            List<String> changed = new ArrayList<>();
            for (String line : CommandClassifier.logicalLines(p.commandScript)) {
                String rewritten = rewrite(line);
                if (rewritten == null) {
                    changed.add("dropped `" + line + "`");
                } else {
                    if (!rewritten.equals(line)) {
                        changed.add("`" + line + "` → `" + rewritten + "`");
                    }
                    out.add(rewritten);
                }
            }
            if (out.size() > 1) {
                // A multi-line test command is graded by its exit code in the read-only grading tree, where
                // pytest's cache cannot be written (a warning that -W error suites turn into a failure).
                for (int i = 0; i < out.size(); i++) {
                    String l = out.get(i);
                    if (l.matches("(python[0-9.]* -m pytest|pytest|py\\.test)(\\s.*)?") && !l.contains("cacheprovider")) {
                        out.set(i, l.replaceFirst("^(python[0-9.]* -m pytest|pytest|py\\.test)", "$1 -p no:cacheprovider"));
                        changed.add("`" + l + "` without pytest's cache");
                    }
                }
            }
            if (!changed.isEmpty() && out.stream().anyMatch(l -> CommandClassifier.classifyLine(l).kind() == CommandKind.TEST)) {
                p.commandScript = String.join("\n", out);
                if (p.recognised != null && p.recognised.startsWith("coverage run -m ")) {
                    p.recognised = p.recognised.substring("coverage run -m ".length());
                }
                if (p.recognised != null && p.recognised.startsWith("cargo llvm-cov")) {
                    for (String l : out) {
                        CommandClassifier.Classified c = CommandClassifier.classifyLine(l);
                        if (c.kind() == CommandKind.TEST) p.recognised = c.what();
                    }
                }
                p.notes.add("test command adjusted for grading (its tree is read-only; the reward does not depend on "
                        + "coverage): " + String.join("; ", changed));
            }
        }
    }

    /** The line without coverage; null when the line only reports coverage. */
    static String rewrite(String line) {
        String[] w = line.strip().split("\\s+");
        if (w.length >= 2 && w[0].equals("coverage") && Set.of("xml", "report", "html", "lcov", "json", "combine",
                "erase").contains(w[1])) {
            return null;
        }
        if (line.contains("&&") || line.contains("||") || line.contains(";") || line.contains("|")) {
            return line;
        }
        if (w.length >= 2 && w[0].equals("cargo") && List.of(w).subList(1, Math.min(3, w.length)).contains("llvm-cov")) {
            return withoutLlvmCov(line, w);
        }
        List<String> out = new ArrayList<>();
        int i = 0;
        boolean python = false;
        if (w.length >= 2 && (w[0].equals("coverage") || w[0].matches("python[0-9.]*") && w.length >= 4
                && w[1].equals("-m") && w[2].equals("coverage")) && List.of(w).contains("run")) {
            i = List.of(w).indexOf("run") + 1;
            while (i < w.length && w[i].startsWith("-") && !w[i].equals("-m")) {
                i += COVERAGE_OPTIONS_WITH_VALUE.contains(w[i]) ? 2 : 1;
            }
            out.add("python");
            python = true;
        }
        // go test's coverage flags: -coverprofile writes its file into the tree, read-only in grading (caddy: "open
        // cover-profile.out: read-only file system" before any test ran); the others only measure. Up to -args.
        boolean goTest = w.length >= 2 && w[0].equals("go") && w[1].equals("test");
        boolean coverDropped = false;
        boolean testArgs = false;
        for (; i < w.length; i++) {
            String x = w[i];
            if (goTest && x.equals("-args")) {
                goTest = false;
                testArgs = true;
            }
            if (goTest && x.matches("--?cover(profile|mode|pkg)?(=.*)?")) {
                if (x.matches("--?cover(profile|mode|pkg)")) i++;
                coverDropped = true;
                continue;
            }
            // lazygit: `-cover -args -test.gocoverdir=DIR`: a test binary built without -cover refuses the flag ("cannot
            // use -test.gocoverdir because test binary was not built with coverage enabled"), so it goes with -cover
            if (testArgs && coverDropped && x.replace("\"", "").replace("'", "").matches("--?test\\.(gocoverdir|coverprofile)(=.*)?")) {
                if (!x.contains("=")) i++;
                continue;
            }
            if (x.startsWith("--cov")) {
                if (COV_OPTIONS_WITH_VALUE.contains(x)) {
                    i++;
                }
                continue;
            }
            out.add(x);
        }
        if (coverDropped && !out.isEmpty() && out.get(out.size() - 1).equals("-args")) out.remove(out.size() - 1);
        String result = String.join(" ", out);
        return python || !result.equals(String.join(" ", w)) ? result : line;
    }
}
