package dev.crucible.verifier.grade.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code go test}: the grader adds {@code -json} (test2json's event stream on the go command's own
 * stdout) and {@code -count=1} (no cached result stands in for a run). Ids are
 * {@code IMPORT/PATH::TestName/sub_test} as go names them. A package that does not build is a build
 * failure; a package that fails outside any test (TestMain, init panic) is an error entry {@code PKG::(package)}.
 */
public final class GoTestRunner implements TestRunner {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override public String name() { return "go"; }

    @Override
    public boolean matches(TestCommand c) {
        return c.program().equals("go") && c.arg(1).equals("test");
    }

    @Override
    public Plan plan(TestCommand c, Path out, Path root) {
        List<String> w = new ArrayList<>(c.words().subList(0, 2));
        List<String> rest = c.words().subList(2, c.words().size());
        if (!rest.contains("-json")) w.add("-json");
        if (rest.stream().noneMatch(a -> a.startsWith("-count"))) w.add("-count=1");
        w.addAll(rest);
        return new Plan(c.with(w), Map.of());
    }

    @Override
    public String guarantee() {
        return "go test -json: the event stream on the go command's stdout (a pipe the grader reads), checked against its exit code";
    }

    @Override
    public Report read(ExecResult run, Path out, Path root) {
        Map<String, Entry> tests = new LinkedHashMap<>();
        Map<String, String> pkgResult = new LinkedHashMap<>();
        Map<String, StringBuilder> pkgOutput = new LinkedHashMap<>();
        List<String> buildFailures = new ArrayList<>();
        StringBuilder buildOutput = new StringBuilder();
        List<IntegrityFinding> findings = new ArrayList<>();
        int events = 0;
        for (String line : run.stdout().split("\n")) {
            if (!line.startsWith("{")) continue;
            JsonNode e;
            try {
                e = JSON.readTree(line);
            } catch (Exception ex) {
                continue;
            }
            events++;
            String action = e.path("Action").asText();
            String pkg = e.path("Package").asText();
            String test = e.path("Test").asText("");
            switch (action) {
                case "build-output" -> buildOutput.append(e.path("Output").asText());
                case "build-fail" -> buildFailures.add(e.path("ImportPath").asText());
                case "output" -> {
                    StringBuilder sb = test.isEmpty() ? pkgOutput.computeIfAbsent(pkg, k -> new StringBuilder())
                            : tests.computeIfAbsent(pkg + "::" + test, k -> new Entry()).output;
                    if (sb.length() < 8_000) sb.append(e.path("Output").asText());
                }
                case "run" -> tests.computeIfAbsent(pkg + "::" + test, k -> new Entry());
                case "pass", "fail", "skip" -> {
                    if (test.isEmpty()) {
                        pkgResult.put(pkg, action);
                        if (e.hasNonNull("FailedBuild")) buildFailures.add(e.path("FailedBuild").asText());
                        continue;
                    }
                    Entry t = tests.computeIfAbsent(pkg + "::" + test, k -> new Entry());
                    if (t.action != null) {
                        findings.add(IntegrityFinding.tampering("critical", "go", "go test reported " + pkg + "::" + test
                                + " twice (" + t.action + ", then " + action + ")"));
                    }
                    t.action = action;
                    t.elapsed = e.path("Elapsed").asDouble();
                }
                default -> { }
            }
        }
        if (!buildFailures.isEmpty()) {
            String why = buildOutput.length() > 0 ? buildOutput.toString() : String.join(", ", buildFailures) + " did not build";
            return new Report(List.of(), findings, null, ReportChecks.clip(why + "\n" + run.stderr()));
        }
        if (events == 0) {
            return Report.error("go test printed no JSON events (exit " + run.exitCode() + "): " + ReportChecks.clip(run.combined()));
        }
        List<TestCase> result = new ArrayList<>();
        for (var en : tests.entrySet()) {
            Entry t = en.getValue();
            String name = en.getKey().substring(en.getKey().indexOf("::") + 2);
            if (t.action == null && name.startsWith("Benchmark") && !t.output.toString().contains("--- FAIL")) {
                continue; // test2json gives a benchmark (-bench) a run event and its figures, no pass event: not a test
            }
            TestStatus s = t.action == null ? TestStatus.FAILED : switch (t.action) {
                case "pass" -> TestStatus.PASSED;
                case "skip" -> TestStatus.SKIPPED;
                default -> TestStatus.FAILED;
            };
            String pkg = en.getKey().substring(0, en.getKey().indexOf("::"));
            if (s == TestStatus.FAILED && "pass".equals(pkgResult.get(pkg))) {
                findings.add(IntegrityFinding.tampering("critical", "go", "package " + pkg + " passed although " + en.getKey() + " did not"));
            }
            String msg = s == TestStatus.PASSED ? null : ReportChecks.clip(t.output + (t.action == null ? "\n(the test never finished)" : ""));
            result.add(new TestCase(en.getKey(), s, null, Math.round(t.elapsed * 1000), msg));
        }
        for (var p : pkgResult.entrySet()) {
            boolean testFailed = result.stream().anyMatch(t -> t.id().startsWith(p.getKey() + "::") && t.status() == TestStatus.FAILED);
            if (p.getValue().equals("fail") && !testFailed) {
                result.add(new TestCase(p.getKey() + "::(package)", TestStatus.ERROR, null, null,
                        ReportChecks.clip(String.valueOf(pkgOutput.getOrDefault(p.getKey(), new StringBuilder())))));
            }
        }
        findings.addAll(ReportChecks.exitCode("go", run, result));
        return new Report(result, findings, null, null);
    }

    private static final class Entry {
        String action;
        double elapsed;
        final StringBuilder output = new StringBuilder();
    }
}
