package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cross-checks shared by runners: a report must agree with the runner's exit code and with the counts
 * the runner printed itself, and a report file must be a plain file in the grader's fresh folder. Every
 * disagreement is a {@code grader-tampering} finding; high and critical ones void the run's results.
 */
final class ReportChecks {
    static final int MESSAGE_MAX = 2_000;

    private ReportChecks() {}

    static String clip(String s) {
        if (s == null) return null;
        String t = s.strip();
        return t.length() <= MESSAGE_MAX ? t : t.substring(0, MESSAGE_MAX) + "…";
    }

    /** A report file the graded process wrote: a regular file (no link) directly in the grader's folder, else null. */
    static byte[] readReport(Path out, String name) throws IOException {
        Path f = out.resolve(name);
        if (!Files.exists(f, LinkOption.NOFOLLOW_LINKS)) return null;
        if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) throw new IOException(name + " is not a regular file");
        return Files.readAllBytes(f);
    }

    /**
     * The exit code should tell the report's story. A contradiction is recorded ({@code info}: a coverage
     * threshold, a leak check or a script's {@code || true} cause it honestly); scoring without lists
     * still fails a run whose command failed, and forged results are caught by the count checks.
     */
    static List<IntegrityFinding> exitCode(String runner, ExecResult run, List<TestCase> tests) {
        List<IntegrityFinding> out = new ArrayList<>();
        if (run.timedOut() || tests.isEmpty()) return out;
        boolean anyFailed = tests.stream().anyMatch(t -> t.status() == TestStatus.FAILED || t.status() == TestStatus.ERROR);
        if (run.exitCode() == 0 && anyFailed) {
            out.add(IntegrityFinding.tampering("info", runner, runner + " exited 0 but its report has failed tests"));
        } else if (run.exitCode() != 0 && !anyFailed) {
            out.add(IntegrityFinding.tampering("info", runner, runner + " exited " + run.exitCode()
                    + " but its report shows no failed test (the report does not tell the whole story)"));
        }
        return out;
    }

    /** Counts by status as the report gives them. */
    static Map<TestStatus, Integer> counts(List<TestCase> tests) {
        Map<TestStatus, Integer> m = new HashMap<>();
        for (TestCase t : tests) m.merge(t.status(), 1, Integer::sum);
        return m;
    }

    /** Compares what a report file says with what the runner printed; {@code printed} null: nothing printed to compare. */
    static List<IntegrityFinding> compareCounts(String runner, Map<String, Integer> fromReport, Map<String, Integer> printed) {
        List<IntegrityFinding> out = new ArrayList<>();
        if (printed == null) {
            // every completed run prints one; without it the file cannot be checked, so it is not trusted
            out.add(IntegrityFinding.tampering("high", runner, runner + " printed no summary to check its report file against"));
            return out;
        }
        Map<String, String> diffs = new LinkedHashMap<>();
        for (var e : printed.entrySet()) {
            int r = fromReport.getOrDefault(e.getKey(), 0);
            if (r != e.getValue()) diffs.put(e.getKey(), "report " + r + ", printed " + e.getValue());
        }
        if (!diffs.isEmpty()) {
            out.add(IntegrityFinding.tampering("critical", runner, runner + "'s report file disagrees with its own output: " + diffs));
        }
        return out;
    }

    /** Ids must be unique: the same name twice in one report gets " #2", " #3" so each stays addressable. */
    static List<TestCase> uniqueIds(List<TestCase> tests) {
        Map<String, Integer> seen = new HashMap<>();
        List<TestCase> out = new ArrayList<>();
        for (TestCase t : tests) {
            int n = seen.merge(t.id(), 1, Integer::sum);
            out.add(n == 1 ? t : new TestCase(t.id() + " #" + n, t.status(), t.group(), t.durationMs(), t.message()));
        }
        return out;
    }
}
