package dev.crucible.verifier.grade.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code python -m unittest ARGS}, and {@code python test.py ARGS} for a script that ends in
 * {@code unittest.main()} with unittest's own runner: the grader runs the same command line through its own shim
 * ({@code crucible_unittest.py}, written into the fresh report folder), which calls
 * {@code unittest.main(module=None)} as {@code -m unittest} does with a result class that writes one
 * JSON line per outcome. Ids are unittest's ({@code tests.test_x.Case.test_y}); a failing subtest fails
 * its test. The report is checked against unittest's own closing lines ({@code Ran N tests},
 * {@code OK}/{@code FAILED (...)}) and its exit code.
 */
public final class UnittestRunner implements TestRunner {
    static final String SHIM = "crucible_unittest.py";
    static final String REPORT = "unittest-report.jsonl";
    private static final byte[] SHIM_SOURCE = load();
    private static final Pattern RAN = Pattern.compile("(?m)^Ran (\\d+) tests? in ");
    private static final Pattern VERDICT = Pattern.compile("(?m)^(OK|FAILED)\\b(?: \\((.*)\\))?\\s*$");

    @Override public String name() { return "unittest"; }

    @Override
    public boolean matches(TestCommand c) {
        return c.runsPython() && c.arg(1).equals("-m") && c.arg(2).equals("unittest");
    }

    /** Also {@code python test.py ARGS} where test.py ends in {@code unittest.main()} with unittest's own runner. */
    @Override
    public boolean matches(TestCommand c, Path root) {
        return matches(c) || unittestScript(c, root);
    }

    /** A script of the tree whose tests unittest.main runs with the default runner (so the grader's result class is used). */
    public static boolean unittestScript(TestCommand c, Path root) {
        if (!c.runsPython() || !c.arg(1).endsWith(".py") || root == null) return false;
        Path f = root.resolve(c.arg(1)).normalize();
        if (!f.startsWith(root.normalize()) || !Files.isRegularFile(f)) return false;
        try {
            return dev.crucible.contract.UnittestScripts.isUnittestScript(Files.readString(f));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public Plan plan(TestCommand c, Path out, Path root) {
        try {
            Files.write(out.resolve(SHIM), SHIM_SOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> w = new ArrayList<>();
        w.add(c.words().get(0));
        w.add(out.resolve(SHIM).toString());
        w.add(out.resolve(REPORT).toString());
        if (matches(c)) {
            w.addAll(c.words().subList(3, c.words().size()));
        } else { // python test.py ARGS: the script runs as __main__ under the shim
            w.add("--script");
            w.addAll(c.words().subList(1, c.words().size()));
        }
        return new Plan(c.with(w), Map.of());
    }

    @Override
    public String guarantee() {
        return "python -m unittest: the grader's result class writes each outcome to a report file in its fresh folder (inside the graded process), checked against unittest's own 'Ran N tests' and OK/FAILED lines and its exit code";
    }

    @Override
    public Report read(ExecResult run, Path out, Path root) {
        byte[] raw;
        try {
            raw = ReportChecks.readReport(out, REPORT);
        } catch (IOException e) {
            return Report.error("unittest report: " + e.getMessage());
        }
        if (raw == null) return Report.error("unittest wrote no report (exit " + run.exitCode() + "): " + ReportChecks.clip(run.combined()));
        Map<String, TestCase> byId = new LinkedHashMap<>();
        ObjectMapper json = new ObjectMapper();
        List<IntegrityFinding> findings = new ArrayList<>();
        for (String line : new String(raw, StandardCharsets.UTF_8).split("\n")) {
            if (line.isBlank()) continue;
            JsonNode n;
            try {
                n = json.readTree(line);
            } catch (IOException e) {
                findings.add(IntegrityFinding.tampering("high", "unittest", "unreadable line in the unittest report: " + ReportChecks.clip(line)));
                continue;
            }
            TestStatus s = status(n.path("status").asText());
            String id = n.path("id").asText();
            if (s == null || id.isEmpty()) {
                findings.add(IntegrityFinding.tampering("high", "unittest", "unknown record in the unittest report: " + ReportChecks.clip(line)));
                continue;
            }
            TestCase t = new TestCase(id, s, null, null, n.hasNonNull("message") ? ReportChecks.clip(n.get("message").asText()) : null);
            byId.merge(id, t, (a, b) -> worse(a, b) ? a : b); // a failing subtest and the test's own end: the worse one counts
        }
        List<TestCase> tests = new ArrayList<>(byId.values());
        String err = run.stderr() == null ? "" : run.stderr();
        Matcher ran = RAN.matcher(err);
        Integer printed = null;
        while (ran.find()) printed = Integer.parseInt(ran.group(1)); // the last: a test may print its own
        if (printed == null && tests.isEmpty() && run.exitCode() != 0) {
            // the script stopped before any test ran (an import the code under test cannot satisfy yet): a failure, not tampering
            return Report.error("the test script stopped before running any test (exit " + run.exitCode() + "): " + ReportChecks.clip(err.strip()));
        }
        if (printed == null) {
            findings.add(IntegrityFinding.tampering("medium", "unittest", "unittest printed no 'Ran N tests' line (exit " + run.exitCode() + ")"));
        } else if (printed != tests.size()) {
            findings.add(IntegrityFinding.tampering("high", "unittest", "the report has " + tests.size() + " tests, unittest said it ran " + printed));
        }
        Matcher v = VERDICT.matcher(err);
        String verdict = null;
        while (v.find()) verdict = v.group(1);
        boolean anyFailed = tests.stream().anyMatch(t -> t.status() == TestStatus.FAILED || t.status() == TestStatus.ERROR);
        if (verdict != null && verdict.equals("OK") == anyFailed) {
            findings.add(IntegrityFinding.tampering("high", "unittest", "unittest said " + verdict + " but its report "
                    + (anyFailed ? "has" : "has no") + " failed tests"));
        }
        findings.addAll(ReportChecks.exitCode("unittest", run, tests));
        return new Report(tests, findings, null, null);
    }

    private static TestStatus status(String s) {
        return switch (s) {
            case "passed" -> TestStatus.PASSED;
            case "failed" -> TestStatus.FAILED;
            case "error" -> TestStatus.ERROR;
            case "skipped" -> TestStatus.SKIPPED;
            case "xfailed" -> TestStatus.XFAILED;
            case "xpassed" -> TestStatus.XPASSED;
            default -> null;
        };
    }

    private static boolean worse(TestCase a, TestCase b) {
        return rank(a.status()) >= rank(b.status());
    }

    private static int rank(TestStatus s) {
        return switch (s) {
            case ERROR -> 5;
            case FAILED -> 4;
            case XPASSED -> 3;
            case XFAILED, SKIPPED -> 2;
            default -> 1;
        };
    }

    private static byte[] load() {
        try (InputStream in = UnittestRunner.class.getResourceAsStream(SHIM)) {
            if (in == null) throw new IllegalStateException("resource " + SHIM + " missing from the sidecar-verifier jar");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
