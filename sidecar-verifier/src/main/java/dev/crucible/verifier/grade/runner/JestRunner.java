package dev.crucible.verifier.grade.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * jest and vitest (same JSON report shape): the grader asks for the JSON report in its own fresh folder
 * ({@code jest --json --outputFile=OUT/jest.json}; {@code vitest run --reporter=default --reporter=json
 * --outputFile.json=OUT/vitest.json}) and checks it against the "Tests:" summary the runner prints
 * itself and its exit code: the file is written inside the graded process, so it is never trusted alone.
 * Ids are {@code FILE::describe > test} with FILE relative to the grading tree; a test file that
 * failed to load is {@code FILE::(file)}, an error.
 */
public final class JestRunner implements TestRunner {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*[A-Za-z]");
    /** jest: "Tests:       2 failed, 1 skipped, 1 passed, 4 total"; vitest: "Tests  1 failed | 1 passed | 1 skipped (3)". */
    static final Pattern JEST_SUMMARY = Pattern.compile("^\\s*Tests:\\s+(.*\\d+ total)\\s*$");
    static final Pattern VITEST_SUMMARY = Pattern.compile("^\\s*Tests\\s+(.*)\\((\\d+)\\)\\s*$");
    static final Pattern PART = Pattern.compile("(\\d+) (failed|passed|skipped|todo|pending|total)");

    private final boolean vitest;

    public JestRunner(boolean vitest) { this.vitest = vitest; }

    @Override public String name() { return vitest ? "vitest" : "jest"; }

    @Override
    public boolean matches(TestCommand c) {
        return c.program().equals(vitest ? "vitest" : "jest");
    }

    private String file() { return name() + ".json"; }

    @Override
    public Plan plan(TestCommand c, Path out, Path root) {
        List<String> w = new ArrayList<>();
        w.add(c.words().get(0));
        int from = 1;
        if (vitest) {
            w.add("run");
            if (List.of("run", "watch", "dev").contains(c.arg(1))) from = 2;
        }
        for (int i = from; i < c.words().size(); i++) {
            String a = c.words().get(i);
            if (a.equals("--json") || a.equals("--watch") || a.equals("--watchAll")) continue;
            if (a.equals("--outputFile") || a.equals("--reporter") || a.equals("--reporters")) {
                i++;
                continue;
            }
            if (a.startsWith("--outputFile") || a.startsWith("--reporter")) continue;
            w.add(a);
        }
        Path report = out.resolve(file());
        if (vitest) w.addAll(List.of("--reporter=default", "--reporter=json", "--outputFile.json=" + report));
        else w.addAll(List.of("--json", "--outputFile=" + report));
        return new Plan(c.with(w), Map.of("NO_COLOR", "1", "FORCE_COLOR", "0", "CI", "true"));
    }

    @Override
    public String guarantee() {
        return name() + ": its JSON report in the grader's fresh folder (written by the graded process), cross-checked against the summary it prints and its exit code";
    }

    @Override
    public Report read(ExecResult run, Path out, Path root) {
        JsonNode doc;
        try {
            byte[] bytes = ReportChecks.readReport(out, file());
            if (bytes == null) return Report.error(name() + " wrote no JSON report (exit " + run.exitCode() + "): " + ReportChecks.clip(run.combined()));
            doc = JSON.readTree(bytes);
        } catch (IOException e) {
            return new Report(List.of(), List.of(IntegrityFinding.tampering("high", name(), name() + "'s JSON report is unreadable: " + e.getMessage())),
                    name() + "'s JSON report is unreadable", null);
        }
        List<TestCase> tests = new ArrayList<>();
        Map<String, Integer> counts = new HashMap<>();
        for (JsonNode file : doc.path("testResults")) {
            String rel = relative(root, file.path("name").asText());
            JsonNode cases = file.path("assertionResults");
            for (JsonNode a : cases) {
                List<String> path = new ArrayList<>();
                a.path("ancestorTitles").forEach(n -> path.add(n.asText()));
                path.add(a.path("title").asText());
                String st = a.path("status").asText();
                TestStatus s = switch (st) {
                    case "passed" -> TestStatus.PASSED;
                    case "failed" -> TestStatus.FAILED;
                    default -> TestStatus.SKIPPED; // pending, skipped, todo, disabled
                };
                counts.merge(st.equals("pending") || st.equals("disabled") ? "skipped" : st, 1, Integer::sum);
                counts.merge("total", 1, Integer::sum);
                StringBuilder msg = new StringBuilder();
                a.path("failureMessages").forEach(n -> msg.append(n.asText()).append('\n'));
                Long ms = a.hasNonNull("duration") ? Math.round(a.path("duration").asDouble()) : null;
                tests.add(new TestCase(rel + "::" + String.join(" > ", path), s, null, ms, s == TestStatus.FAILED ? ReportChecks.clip(msg.toString()) : null));
            }
            if (cases.isEmpty() && file.path("status").asText().equals("failed")) {
                tests.add(new TestCase(rel + "::(file)", TestStatus.ERROR, null, null, ReportChecks.clip(file.path("message").asText())));
            }
        }
        List<IntegrityFinding> findings = new ArrayList<>(ReportChecks.compareCounts(name(), counts, printedSummary(run)));
        findings.addAll(ReportChecks.exitCode(name(), run, tests));
        return new Report(ReportChecks.uniqueIds(tests), findings, null, null);
    }

    /** The last summary line the runner printed (stdout and stderr), as counts; null when there is none. */
    Map<String, Integer> printedSummary(ExecResult run) {
        Map<String, Integer> found = null;
        for (String raw : (run.stdout() + "\n" + (run.stderr() == null ? "" : run.stderr())).split("\n")) {
            String line = ANSI.matcher(raw).replaceAll("");
            Matcher m = (vitest ? VITEST_SUMMARY : JEST_SUMMARY).matcher(line);
            if (!m.matches()) continue;
            Map<String, Integer> c = new LinkedHashMap<>();
            Matcher p = PART.matcher(m.group(1));
            while (p.find()) c.merge(p.group(2).equals("pending") ? "skipped" : p.group(2), Integer.parseInt(p.group(1)), Integer::sum);
            if (vitest) c.put("total", Integer.parseInt(m.group(2)));
            found = c;
        }
        return found;
    }

    static String relative(Path root, String file) {
        try {
            Path p = Path.of(file);
            Path r = root.toAbsolutePath().normalize();
            return p.isAbsolute() && p.normalize().startsWith(r) ? r.relativize(p.normalize()).toString() : file;
        } catch (RuntimeException e) {
            return file;
        }
    }
}
