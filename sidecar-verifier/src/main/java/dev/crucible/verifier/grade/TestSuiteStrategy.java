package dev.crucible.verifier.grade;

import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A test suite with a report (pytest via JUnit XML, any JUnit XML, TAP) and SWE-bench semantics:
 * when FAIL_TO_PASS / PASS_TO_PASS are given, exactly those tests decide, and a listed test that did
 * not run counts as failed; otherwise every collected test counts.
 */
public final class TestSuiteStrategy implements Strategy {
    @Override
    public Outcome grade(VerifierSpec v, GradeContext ctx) {
        Duration timeout = Duration.ofSeconds(v.timeoutOrDefault());
        ExecResult build = ctx.build(v.buildCommand(), timeout);
        if (build != null && !build.ok()) return BuildFailure.outcome("test-suite", v, build);
        String framework = v.frameworkOrDefault();
        Path junit = ctx.resultsDir().resolve("junit-" + System.nanoTime() + ".xml");
        ExecResult run = run(v, ctx, framework, junit, timeout);
        List<TestCase> reported;
        String reportError = null;
        try {
            reported = switch (framework) {
                case "tap" -> TapParser.parse(v.reportPath() == null ? run.stdout() : Files.readString(ctx.root().resolve(v.reportPath())));
                case "junit-xml" -> JUnitXmlParser.parse(ctx.root().resolve(v.reportPath()), false);
                default -> JUnitXmlParser.parse(junit, true);
            };
        } catch (IOException | RuntimeException e) {
            reported = List.of();
            reportError = "no test report: " + e.getMessage();
        }
        return score(v, reported, run, reportError, timeout);
    }

    private static ExecResult run(VerifierSpec v, GradeContext ctx, String framework, Path junit, Duration timeout) {
        if (framework.equals("pytest")) {
            Optional<List<String>> args = PytestCommand.pytestArgs(v.command());
            if (args.isPresent()) {
                return ctx.argv(PytestCommand.argv(ctx.python(), args.get(), ctx.root(), junit, ctx.resultsDir()), timeout);
            }
            // Another shape (a script, a pipeline): pin pytest's options through PYTEST_ADDOPTS.
            Map<String, String> env = new LinkedHashMap<>(ctx.env());
            env.put("PYTEST_ADDOPTS", String.join(" ", PytestCommand.pinnedOptions(ctx.root(), junit, ctx.resultsDir()).stream()
                    .map(ShellQuote::quote).toList()));
            GradeContext c2 = new GradeContext(ctx.root(), ctx.resultsDir(), ctx.envDir(), ctx.executor(), ctx.python(), env, ctx.onStart());
            return c2.shell(v.command(), timeout, null);
        }
        return ctx.shell(v.command(), timeout, null);
    }

    static Outcome score(VerifierSpec v, List<TestCase> reported, ExecResult run, String reportError, Duration timeout) {
        boolean skippedOk = v.skippedCountsAsPassed();
        Map<String, TestCase> byId = new LinkedHashMap<>();
        for (TestCase t : reported) byId.putIfAbsent(t.id(), t);
        List<TestCase> considered = new ArrayList<>();
        boolean swe = !v.failToPass().isEmpty() || !v.passToPass().isEmpty();
        int f2p = 0;
        int p2p = 0;
        if (swe) {
            for (String id : v.failToPass()) {
                TestCase t = pick(byId, id, "failToPass");
                considered.add(t);
                if (t.status().counts(skippedOk)) f2p++;
            }
            for (String id : v.passToPass()) {
                TestCase t = pick(byId, id, "passToPass");
                considered.add(t);
                if (t.status().counts(skippedOk)) p2p++;
            }
            for (TestCase t : reported) {
                if (!v.failToPass().contains(t.id()) && !v.passToPass().contains(t.id())) considered.add(t.withGroup("other"));
            }
        } else {
            reported.forEach(t -> considered.add(t.withGroup("other")));
        }
        List<TestCase> scoring = considered.stream().filter(t -> !swe || !t.group().equals("other")).toList();
        int passed = (int) scoring.stream().filter(t -> t.status().counts(skippedOk)).count();
        int total = scoring.size();
        boolean anyError = scoring.stream().anyMatch(t -> t.status() == TestStatus.ERROR);
        Category cat;
        String reason = reportError;
        if (run.timedOut()) {
            cat = Category.RUNTIME_ERROR;
            reason = "test command timed out after " + timeout.toSeconds() + "s";
        } else if (reported.isEmpty()) {
            cat = Category.RUNTIME_ERROR;
            if (reason == null) reason = "no tests ran (exit " + run.exitCode() + "): " + Tail.of(run.combined());
        } else if (total > 0 && passed == total) {
            cat = Category.PASSED;
        } else {
            cat = anyError ? Category.RUNTIME_ERROR : Category.TESTS_FAILED;
            reason = (total - passed) + " of " + total + " tests did not pass";
        }
        if (cat == Category.PASSED && !swe && run.exitCode() != 0 && !v.frameworkOrDefault().equals("tap")) {
            cat = Category.TESTS_FAILED; // the runner says something failed that the report does not show
            reason = "test command exited " + run.exitCode();
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("exitCode", run.exitCode());
        if (swe) {
            details.put("failToPass", Map.of("passed", f2p, "total", v.failToPass().size()));
            details.put("passToPass", Map.of("passed", p2p, "total", v.passToPass().size()));
        }
        if (cat != Category.PASSED) details.put("outputTail", Tail.of(run.combined()));
        return new Outcome("test-suite", RewardMode.reward(v.rewardModeOrDefault(), cat, passed, total), RewardMode.verdict(cat),
                cat.label, reason, total == 0 ? 0.0 : (double) passed / total, considered, details, run.elapsedMs());
    }

    private static TestCase pick(Map<String, TestCase> byId, String id, String group) {
        TestCase t = byId.get(id);
        return t == null ? new TestCase(id, TestStatus.MISSING, group, null, "listed test did not run") : t.withGroup(group);
    }
}
