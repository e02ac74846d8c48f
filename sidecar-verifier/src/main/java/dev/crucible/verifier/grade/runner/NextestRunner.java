package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code cargo nextest run}: the grader adds {@code --no-fail-fast --status-level skip} so every test's
 * final status line ({@code PASS [ 0.004s] fixture tests::adds}) is printed, and checks the lines against
 * nextest's own {@code Summary} line and its exit code. Ids are {@code BINARY-ID::test}
 * ({@code fixture::tests::adds}, {@code fixture::it::smoke}: nextest's binary ids have no hash).
 */
public final class NextestRunner implements TestRunner {
    static final Pattern STATUS = Pattern.compile(
            "^\\s*(PASS|FAIL|SKIP|FLAKY|LEAK|LEAK-FAIL|TIMEOUT|SIGSEGV|SIGABRT|SIGKILL|SIGBUS|SIGILL|ABORT|\\w+-FAIL)\\s+\\[[^\\]]*\\](?:\\s+\\(\\s*\\d+/\\d+\\))?\\s+(\\S+)\\s+(.+?)\\s*$");
    static final Pattern SUMMARY = Pattern.compile("^\\s*Summary \\[[^\\]]*\\]\\s+(\\d+) tests? run: (\\d+) passed(?: \\((\\d+) (?:slow|flaky|leaky)[^)]*\\))?(?:, (\\d+) failed)?.*?(?:, (\\d+) skipped)?\\s*$");

    @Override public String name() { return "nextest"; }

    @Override
    public boolean matches(TestCommand c) {
        return c.program().equals("cargo") && CargoTestRunner.subcommand(c).equals("nextest")
                && c.words().indexOf("nextest") + 1 < c.words().size() && c.words().get(c.words().indexOf("nextest") + 1).equals("run");
    }

    @Override
    public Plan plan(TestCommand c, Path out, Path root) {
        List<String> w = new ArrayList<>(c.words());
        int run = w.indexOf("nextest") + 1;
        if (!w.contains("--no-fail-fast")) w.add(run + 1, "--no-fail-fast");
        w.removeIf(a -> a.startsWith("--status-level="));
        w.add(run + 1, "--status-level=skip");
        return new Plan(c.with(w) + " 2>&1", CargoTestRunner.targetDir(out));
    }

    @Override
    public String guarantee() {
        return "cargo nextest: nextest's status lines on its output (a pipe the grader reads), checked against its Summary line and exit code";
    }

    @Override
    public Report read(ExecResult run, Path out, Path root) {
        String text = run.stdout() + (run.stderr() == null ? "" : run.stderr());
        List<TestCase> tests = new ArrayList<>();
        List<IntegrityFinding> findings = new ArrayList<>();
        Matcher summary = null;
        for (String line : text.split("\n")) {
            Matcher m = STATUS.matcher(line);
            if (m.matches()) {
                String st = m.group(1);
                TestStatus s = st.equals("PASS") || st.equals("FLAKY") || st.equals("LEAK") ? TestStatus.PASSED
                        : st.equals("SKIP") ? TestStatus.SKIPPED : TestStatus.FAILED;
                tests.add(new TestCase(m.group(2) + "::" + m.group(3), s, null, null, s == TestStatus.FAILED ? st : null));
                continue;
            }
            Matcher sm = SUMMARY.matcher(line);
            if (sm.matches()) summary = sm;
        }
        if (tests.isEmpty() && summary == null) {
            if (text.contains("error: could not compile")) return new Report(List.of(), findings, null, ReportChecks.clip(text));
            return Report.error("cargo nextest printed no test status (exit " + run.exitCode() + "): " + ReportChecks.clip(text));
        }
        // a test retried prints a line per try: its last line is its result
        java.util.Map<String, TestCase> last = new java.util.LinkedHashMap<>();
        tests.forEach(t -> last.put(t.id(), t));
        List<TestCase> result = new ArrayList<>(last.values());
        if (summary != null) {
            var c = ReportChecks.counts(result);
            int ran = Integer.parseInt(summary.group(1));
            int passed = Integer.parseInt(summary.group(2));
            int failed = summary.group(4) == null ? 0 : Integer.parseInt(summary.group(4));
            int ranLines = result.size() - c.getOrDefault(TestStatus.SKIPPED, 0);
            if (ran != ranLines || passed != c.getOrDefault(TestStatus.PASSED, 0) || failed != c.getOrDefault(TestStatus.FAILED, 0)) {
                findings.add(IntegrityFinding.tampering("critical", "nextest", "nextest's summary (" + ran + " run, " + passed + " passed, "
                        + failed + " failed) disagrees with its status lines (" + c + ")"));
            }
        } else {
            findings.add(IntegrityFinding.tampering("high", "nextest", "nextest printed no Summary line to check its status lines against"));
        }
        findings.addAll(ReportChecks.exitCode("nextest", run, result));
        return new Report(result, findings, null, null);
    }
}
