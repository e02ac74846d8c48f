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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * mocha: the grader asks for the JSON reporter writing into its own fresh folder
 * ({@code --reporter json --reporter-option output=OUT/mocha.json}, mocha 9.2 and later), so test
 * output on stdout cannot corrupt it. mocha prints no other summary with that reporter, so the file is
 * checked against its own stats and against mocha's exit code, which is the number of failures.
 * Ids are {@code FILE::full title} ({@code test/calc.js::calc adds}); a failing hook is an error entry.
 */
public final class MochaRunner implements TestRunner {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override public String name() { return "mocha"; }

    @Override
    public boolean matches(TestCommand c) {
        return c.program().equals("mocha") || c.program().equals("_mocha");
    }

    @Override
    public Plan plan(TestCommand c, Path out, Path root) {
        List<String> w = new ArrayList<>();
        w.add(c.words().get(0));
        for (int i = 1; i < c.words().size(); i++) {
            String a = c.words().get(i);
            if (a.equals("--reporter") || a.equals("-R") || a.equals("--reporter-option") || a.equals("-O") || a.equals("--reporter-options")) {
                i++;
                continue;
            }
            if (a.startsWith("--reporter") || a.equals("--watch") || a.equals("-w")) continue;
            w.add(a);
        }
        w.addAll(List.of("--reporter", "json", "--reporter-option", "output=" + out.resolve("mocha.json")));
        return new Plan(c.with(w), Map.of("NO_COLOR", "1"));
    }

    @Override
    public String guarantee() {
        return "mocha: its JSON report in the grader's fresh folder (written by the graded process), checked against its own stats and mocha's exit code (the number of failures)";
    }

    @Override
    public Report read(ExecResult run, Path out, Path root) {
        JsonNode doc;
        try {
            byte[] bytes = ReportChecks.readReport(out, "mocha.json");
            if (bytes == null) return Report.error("mocha wrote no JSON report (exit " + run.exitCode() + "): " + ReportChecks.clip(run.combined()));
            doc = JSON.readTree(bytes);
        } catch (IOException e) {
            return new Report(List.of(), List.of(IntegrityFinding.tampering("high", "mocha", "mocha's JSON report is unreadable: " + e.getMessage())),
                    "mocha's JSON report is unreadable", null);
        }
        Map<String, TestCase> tests = new LinkedHashMap<>();
        for (String part : List.of("passes", "pending", "failures")) {
            for (JsonNode t : doc.path(part)) {
                String id = JestRunner.relative(root, t.path("file").asText()) + "::" + t.path("fullTitle").asText();
                TestStatus s = part.equals("passes") ? TestStatus.PASSED : part.equals("pending") ? TestStatus.SKIPPED
                        : t.path("type").asText().equals("hook") || t.path("title").asText().startsWith("\"") ? TestStatus.ERROR : TestStatus.FAILED;
                String msg = part.equals("failures") ? ReportChecks.clip(t.path("err").path("message").asText() + "\n" + t.path("err").path("stack").asText()) : null;
                Long ms = t.hasNonNull("duration") ? t.path("duration").asLong() : null;
                tests.put(id, new TestCase(id, s, null, ms, msg)); // a failure after a pass (a failing afterEach) wins
            }
        }
        List<TestCase> list = new ArrayList<>(tests.values());
        List<IntegrityFinding> findings = new ArrayList<>();
        JsonNode stats = doc.path("stats");
        var c = ReportChecks.counts(list);
        int failures = c.getOrDefault(TestStatus.FAILED, 0) + c.getOrDefault(TestStatus.ERROR, 0);
        Map<String, Integer> fromList = Map.of("passes", c.getOrDefault(TestStatus.PASSED, 0), "failures", doc.path("failures").size());
        Map<String, Integer> fromStats = Map.of("passes", stats.path("passes").asInt(-1), "failures", stats.path("failures").asInt(-1));
        findings.addAll(ReportChecks.compareCounts("mocha", fromList, fromStats));
        if (!run.timedOut() && run.exitCode() != Math.min(doc.path("failures").size(), 255)) {
            findings.add(IntegrityFinding.tampering("critical", "mocha", "mocha exited " + run.exitCode() + " but its report lists "
                    + doc.path("failures").size() + " failures (mocha exits with the number of failures)"));
        }
        if (failures == 0 && list.isEmpty()) findings.clear();
        return new Report(list, findings, null, null);
    }
}
