package dev.crucible.verifier.grade;

import dev.crucible.contract.Verdict;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Grades a command of several runner lines ({@link RunnerLines}) one line at a time, each per test,
 * then scores all their tests together against the environment's lists and exclusions. A test id
 * that an earlier line already reported (the same suite under other build tags) is kept as
 * {@code "ID [line K]"}. A line that reported no tests, or that the grader could not run, fails the
 * whole grade with that line's reason; a line that exited non-zero with only excluded tests failing does
 * not.
 */
final class MultiLineGrading {
    private MultiLineGrading() {}

    static Outcome grade(TestSuiteStrategy strategy, VerifierSpec v, GradeContext ctx, List<String> scripts, Duration timeout) {
        List<TestCase> merged = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        List<IntegrityFinding> findings = new ArrayList<>();
        List<Map<String, Object>> executions = new ArrayList<>();
        Set<String> excluded = v.excludedIds();
        int exit = 0;
        long elapsed = 0;
        StringBuilder tails = new StringBuilder();
        for (int k = 0; k < scripts.size(); k++) {
            String line = "line " + (k + 1);
            Outcome o = strategy.grade(single(v, scripts.get(k)), ctx);
            findings.addAll(o.integrity());
            elapsed += o.commandMs();
            Object code = o.details().get("exitCode");
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("command", TestSuiteStrategy.lastLine(scripts.get(k)));
            e.put("runner", o.details().getOrDefault("runner", "pytest"));
            e.put("exitCode", code);
            e.put("tests", o.tests().size());
            executions.add(e);
            boolean timedOutHere = o.reason() != null && o.reason().startsWith("test command timed out");
            if (o.tests().isEmpty() || timedOutHere || o.category().equals(Category.BUILD_FAILED.label) || Verdict.ERROR.wire().equals(o.verdict())) {
                return new Outcome(o.type(), o.reward(), o.verdict(), o.category(), line + " (" + TestSuiteStrategy.lastLine(scripts.get(k)) + "): " + o.reason(),
                        o.partialCredit(), o.tests(), withExecutions(o.details(), executions), elapsed, findings);
            }
            List<String> failing = new ArrayList<>();
            for (TestCase t : o.tests()) {
                String id = seen.add(t.id()) ? t.id() : t.id() + " [" + line + "]";
                seen.add(id);
                TestCase renamed = new TestCase(id, t.status(), t.group(), t.durationMs(), t.message());
                merged.add(renamed);
                if (!t.status().counts(v.skippedCountsAsPassed())) failing.add(id);
            }
            int c = code instanceof Integer i ? i : 0;
            if (c != 0 && exit == 0 && !excluded.containsAll(failing)) exit = c; // only excluded (offline) tests failing: not this line's failure
            if (c != 0 && failing.isEmpty() && exit == 0) exit = c; // exited non-zero with every test passing: something failed unseen
            if (o.details().get("outputTail") instanceof String tail) tails.append(line).append(": ").append(tail).append('\n');
        }
        ExecResult all = new ExecResult(exit, tails.toString(), "", false, false, elapsed, -1);
        // a finding of one line voids every line's results, as a single run's findings void all of its tests
        Outcome o = TestSuiteStrategy.score(v, ChannelReport.distrust(merged, findings), all, null, timeout);
        return TestSuiteStrategy.withFindings(o, findings, withExecutions(o.details(), executions));
    }

    /** Line K alone, graded as a whole suite: the environment's lists and exclusions apply to the merged tests. */
    private static VerifierSpec single(VerifierSpec v, String script) {
        return new VerifierSpec(v.type(), script, null, v.framework(), v.reportPath(), List.of(), List.of(), v.rewardMode(),
                v.timeoutSeconds(), v.protectedPaths(), v.hiddenTests(), v.countSkippedAsPassed(), v.ioCases(), v.bidirectional(),
                v.components(), v.interpreter(), List.of(), v.oracle(), v.inProcessVerdicts()); // the oracle's switches hold per line too
    }

    private static Map<String, Object> withExecutions(Map<String, Object> details, List<Map<String, Object>> executions) {
        Map<String, Object> d = new LinkedHashMap<>(details);
        d.put("runner", "per line");
        d.put("executions", executions);
        return d;
    }
}
