package dev.crucible.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the package.json scripts a Node test step runs. A script that only wraps the tests in coverage
 * ({@code "test-ci": "nyc --reporter=lcov npm test"}) is replaced by what it wraps: nyc and c8 write
 * {@code .nyc_output} and {@code coverage/} into the grading tree, which is read-only, and a reward does
 * not depend on coverage. A step whose script is one plain jest, vitest, mocha or {@code node --test}
 * run is recognised as that runner, so it is graded per test (the grader expands the script itself).
 * {@code ts-scripts test} (@borderless/ts-scripts: build, check, then vitest with coverage) is written
 * out as those steps, the vitest run last and without coverage, so its tests are graded one by one.
 */
final class NodeScripts {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern RUN_SCRIPT = Pattern.compile(
            "(?<![\\w-])(npm|yarn|pnpm)\\s+(?:run(?:-script)?\\s+)?([\\w:.-]+)(?=\\s*($|[;&|)]))", Pattern.MULTILINE);
    private static final Set<String> WITH_VALUE = Set.of("-r", "--reporter", "--report-dir", "--temp-dir", "-x",
            "--exclude", "-n", "--include", "--extension", "-e", "--lines", "--branches", "--functions", "--statements");
    private static final Set<String> RUNNERS = Set.of("jest", "vitest", "mocha");
    /** {@code ts-scripts test}, optionally followed by more commands joined with {@code &&}. */
    private static final Pattern TS_SCRIPTS_TEST = Pattern.compile("ts-scripts\\s+test((?:\\s*&&\\s*[^;&|<>`$]+)*)");
    /** {@code if COND; then A; else B; fi} over lines, A and B one command each. */
    private static final Pattern SAME_BRANCHES = Pattern.compile(
            "(?s)\\s*if\\s+([^\\n]+?);\\s*then\\s*\\n\\s*([^\\n]*\\S)\\s*\\n\\s*else\\s*\\n\\s*([^\\n]*\\S)\\s*\\n\\s*fi\\s*");

    private NodeScripts() {
    }

    static void adjust(List<PlannedStep> tests, Function<String, String> readFile) {
        for (PlannedStep p : tests) {
            if (p.commandScript == null || p.shellTemplate != null) {
                continue;
            }
            JsonNode pkg = packageJson(p, readFile);
            JsonNode scripts = pkg == null ? null : pkg.path("scripts");
            if (scripts == null || !scripts.isObject()) {
                continue;
            }
            Matcher m = RUN_SCRIPT.matcher(p.commandScript);
            StringBuilder out = new StringBuilder();
            boolean changed = false;
            while (m.find()) {
                String name = m.group(2);
                String wrapped = withoutCoverage(scripts.path(name).asText(""));
                if (wrapped != null) {
                    m.appendReplacement(out, Matcher.quoteReplacement(wrapped));
                    p.notes.add("test command adjusted for grading (its tree is read-only; the reward does not depend "
                            + "on coverage): `" + m.group() + "` runs `" + scripts.path(name).asText() + "`, so `"
                            + wrapped + "` runs instead");
                    changed = true;
                }
            }
            if (changed) {
                m.appendTail(out);
                p.commandScript = out.toString();
                Matcher same = SAME_BRANCHES.matcher(p.commandScript);
                if (same.matches() && same.group(2).equals(same.group(3))) {
                    // `if npm ls nyc; then npm run test-ci; else npm test; fi`: both branches now run the same tests
                    p.notes.add("`if " + same.group(1) + "` chose between two commands that now run the same tests: `"
                            + same.group(2) + "` runs alone");
                    p.commandScript = same.group(2);
                }
            }
            recogniseRunner(p, scripts);
            writeOutTsScripts(p, scripts, pkg);
        }
    }

    /**
     * A one-line {@code npm test} whose script is {@code ts-scripts test [&& more]}: ts-scripts runs
     * {@code build --no-clean}, {@code check} (prettier and tsc), then {@code vitest run --passWithNoTests
     * --coverage} per test config. With one test config that becomes one chain, the vitest run last and
     * without coverage, the script's other commands before it; several configs stay one execution.
     */
    static void writeOutTsScripts(PlannedStep p, JsonNode scripts, JsonNode pkg) {
        List<String> lines = CommandClassifier.logicalLines(p.commandScript);
        if (lines.size() != 1) {
            return;
        }
        Matcher m = RUN_SCRIPT.matcher(lines.get(0).strip());
        if (!m.matches()) {
            return;
        }
        String script = scripts.path(m.group(2)).asText("").strip();
        Matcher t = TS_SCRIPTS_TEST.matcher(script);
        if (!t.matches()) {
            return;
        }
        JsonNode tests = pkg.path("ts-scripts").path("test"); // missing: one test config with no options
        JsonNode test = tests.isArray() && tests.size() == 1 ? tests.get(0) : tests;
        if (!test.isMissingNode() && !test.isObject()) {
            return; // several test configs (or none): each its own vitest run
        }
        StringBuilder vitest = new StringBuilder("vitest run");
        if (test.path("config").isTextual()) {
            vitest.append(" --config ").append(test.get("config").asText());
        }
        if (test.path("dir").isTextual()) {
            vitest.append(" --dir ").append(test.get("dir").asText());
        }
        vitest.append(" --passWithNoTests");
        if (vitest.toString().matches(".*[;&|<>`$'\"\\\\].*")) {
            return;
        }
        String rest = t.group(1).strip();
        String chain = "ts-scripts build --no-clean && ts-scripts check" + (rest.isEmpty() ? "" : " " + rest) + " && " + vitest;
        p.notes.add("`" + m.group() + "` runs `" + script + "`; ts-scripts test is build, check, then vitest with "
                + "coverage, so `" + chain + "` runs instead: the tests graded one by one (vitest last), coverage left out");
        p.commandScript = "export PATH=\"$PWD/node_modules/.bin:$PATH\"\n" + chain;
        p.recognised = "vitest";
        p.runnerLast = true;
    }

    /** The command a coverage-only script wraps ({@code nyc --reporter=lcov npm test} → {@code npm test}); null otherwise. */
    static String withoutCoverage(String script) {
        String[] w = script.strip().split("\\s+");
        if (w.length < 2 || !(w[0].equals("nyc") || w[0].equals("c8")) || script.matches(".*[;&|<>`$].*")) {
            return null;
        }
        int i = 1;
        while (i < w.length && w[i].startsWith("-")) {
            i += WITH_VALUE.contains(w[i]) ? 2 : 1;
        }
        if (i >= w.length || Set.of("report", "check-coverage", "instrument", "merge").contains(w[i])) {
            return null;
        }
        return String.join(" ", List.of(w).subList(i, w.length));
    }

    /** A one-line `npm test` whose script is a plain runner invocation: recognised as that runner. */
    private static void recogniseRunner(PlannedStep p, JsonNode scripts) {
        List<String> lines = CommandClassifier.logicalLines(p.commandScript);
        if (lines.size() != 1) {
            return;
        }
        Matcher m = RUN_SCRIPT.matcher(lines.get(0));
        if (!m.matches()) {
            return;
        }
        String script = scripts.path(m.group(2)).asText("").strip();
        String[] w = script.split("\\s+");
        if (script.isEmpty() || script.matches(".*[;&|<>`$].*")) {
            return;
        }
        if (RUNNERS.contains(w[0])) {
            p.recognised = w[0];
        } else if (w[0].equals("node") && List.of(w).contains("--test")) {
            p.recognised = "node --test";
        }
    }

    /** The package.json of the step's working directory, or null when there is none or it does not parse. */
    private static JsonNode packageJson(PlannedStep p, Function<String, String> readFile) {
        String dir = p.workingDirectory == null || p.workingDirectory.isBlank() || p.workingDirectory.equals(".") ? ""
                : p.workingDirectory.replaceFirst("^\\./", "").replaceFirst("/?$", "/");
        String text = readFile.apply(dir + "package.json");
        try {
            return text == null ? null : JSON.readTree(text);
        } catch (Exception e) {
            return null;
        }
    }
}
