package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.TestIds;
import dev.crucible.contract.Verdict;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.JUnitXmlParser;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.grade.shell.ShellQuote;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.runner.JUnitReportRunner;
import dev.crucible.verifier.grade.runner.Runners;
import dev.crucible.verifier.grade.runner.TestCommand;
import dev.crucible.verifier.grade.runner.TestRunner;
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
 * A test suite graded per test: pytest through the grader's reporter and result channel, the runners of
 * {@link Runners} (go, cargo, nextest, node --test, jest, vitest, mocha, Maven, Gradle) through machine
 * output the grader asks for itself, JUnit XML and TAP from a report. SWE-bench semantics:
 * when FAIL_TO_PASS / PASS_TO_PASS are given, exactly those tests decide, and a listed test that did
 * not run counts as failed; otherwise every collected test counts.
 */
public final class TestSuiteStrategy implements Strategy {
    /** How long the channel may stay open after the command ended (a leftover writer) before grading goes on without it. */
    static final long CHANNEL_GRACE_MS = 2_000;
    /** The group of a test the environment excludes (it ran, it does not count; {@code details.excluded} says why). */
    public static final String EXCLUDED = "excluded";

    /** Runner output (the event stream, the human lines) can be large; a cut stream is incomplete, never passed. */
    static final int RUNNER_MAX_OUTPUT = 32 * 1024 * 1024;

    @Override
    public Outcome grade(VerifierSpec v, GradeContext ctx) {
        Duration timeout = Duration.ofSeconds(v.timeoutOrDefault());
        ExecResult build = ctx.build(v.buildCommand(), timeout);
        if (build != null && !build.ok()) return BuildFailure.outcome("test-suite", v, build);
        String framework = v.frameworkOrDefault();
        if (!framework.equals("tap") && !framework.equals("junit-xml")) {
            List<String> lines = RunnerLines.split(v.command(), ctx.root()); // several runner lines: each graded per test
            if (lines.size() > 1) return MultiLineGrading.grade(this, v, ctx, lines, timeout);
        }
        Path junit = ctx.resultsDir().resolve("junit-" + System.nanoTime() + ".xml");
        if (framework.equals("tap")) return gradeTap(v, ctx, timeout);
        Optional<Runners.Resolved> found = framework.equals("pytest") && v.framework() != null ? Optional.empty()
                : Runners.resolve(v.command(), ctx.root());
        String script = found.map(Runners.Resolved::script).orElse(v.command());
        Optional<TestRunner> runner;
        if (framework.equals("junit-xml")) {
            // the workflow's own report: Maven keeps its cross-check, anything else is read from reportPath
            runner = found.map(Runners.Resolved::runner).filter(r -> r.name().equals("maven") || r.name().equals("gradle"))
                    .or(() -> Optional.of(new JUnitReportRunner("junit-xml", v.reportPath())));
        } else if (v.framework() == null) {
            runner = found.map(Runners.Resolved::runner);
        } else {
            runner = Runners.byName(framework);
        }
        if (runner.isEmpty() && v.framework() == null && WrappedGrading.applies(v.command())) {
            return WrappedGrading.grade(v, ctx, timeout); // make, a script, tox: whatever runners it starts, instrumented
        }
        if (runner.isEmpty()) return gradePytest(v, ctx, junit, timeout);
        return gradeWithRunner(v, ctx, runner.get(), script, timeout);
    }

    private static Outcome gradeTap(VerifierSpec v, GradeContext ctx, Duration timeout) {
        ExecResult run = ctx.shell(v.command(), timeout, null);
        List<TestCase> reported;
        String reportError = null;
        try {
            reported = TapParser.parse(v.reportPath() == null ? run.stdout() : Files.readString(ctx.root().resolve(v.reportPath())));
        } catch (IOException | RuntimeException e) {
            reported = List.of();
            reportError = "no test report: " + e.getMessage();
        }
        return score(v, TestIds.normalise(reported, ctx.root()), run, reportError, timeout);
    }

    /**
     * Another runner: the grader rewrites the command's last line to ask for machine output into a
     * folder it creates now, reads the result back and cross-checks it (see each runner's guarantee).
     */
    static Outcome gradeWithRunner(VerifierSpec v, GradeContext ctx, TestRunner runner, String script, Duration timeout) {
        Path out = ctx.resultsDir().resolve("runner-" + runner.name() + "-" + System.nanoTime());
        TestRunner.Plan plan;
        try {
            Files.createDirectories(ctx.resultsDir());
            Files.createDirectory(out); // fails when it exists: nothing in it predates this run
            Optional<TestCommand> c = TestCommand.parse(script);
            if (c.isPresent() && runner.matches(c.get(), ctx.root())) {
                plan = runner.plan(c.get(), out, ctx.root());
            } else if (runner instanceof JUnitReportRunner j) {
                plan = j.planUnchanged(script, ctx.root());
            } else {
                return error(v, "framework " + runner.name() + ": the command's last line must run " + runner.name()
                        + " without pipes or expansions, got: " + lastLine(script));
            }
        } catch (IOException | RuntimeException e) {
            return error(v, "could not prepare " + runner.name() + "'s report folder: " + e.getMessage());
        }
        Map<String, String> env = new LinkedHashMap<>(ctx.env());
        plan.env().forEach(env::putIfAbsent);
        if (runner.name().equals("unittest")) OracleEntry.unittest(ctx, env); // the grader's shim loads the isolated oracle
        ExecRequest req = new ExecRequest(dev.crucible.verifier.exec.Shell.argv(plan.command()), ctx.root(), env, true, timeout,
                RUNNER_MAX_OUTPUT, null, false, null);
        TreeWrites.Run graded = TreeWrites.run(ctx, req, !runner.name().equals("unittest") && TreeWrites.mayWrite(plan.command()));
        ExecResult run = graded.result();
        TestRunner.Report report = runner.read(run, out, ctx.root());
        List<IntegrityFinding> findings = new ArrayList<>(report.findings());
        findings.addAll(graded.findings());
        if (report.buildFailure() != null && !run.timedOut()) {
            return new Outcome("test-suite", RewardFormula.reward(v.mode(), Category.BUILD_FAILED, 0, 1), Verdict.FAIL.wire(),
                    Category.BUILD_FAILED.label, "build failed (exit " + run.exitCode() + "): " + Tail.of(report.buildFailure()),
                    0.0, List.of(), Map.of("exitCode", run.exitCode(), "runner", runner.name()), run.elapsedMs(), findings);
        }
        String reportError = report.error();
        if (run.truncated()) reportError = runner.name() + "'s output exceeded " + RUNNER_MAX_OUTPUT + " bytes: its results are incomplete";
        List<TestCase> tests = TestIds.normalise(ChannelReport.distrust(report.tests(), findings), ctx.root());
        Outcome o = score(v, tests, run, reportError, timeout);
        if (run.truncated() && o.passed()) {
            o = new Outcome(o.type(), RewardFormula.reward(v.mode(), Category.RUNTIME_ERROR, 0, 1), Verdict.FAIL.wire(), Category.RUNTIME_ERROR.label,
                    reportError, 0.0, o.tests(), o.details(), o.commandMs());
        }
        Map<String, Object> details = new LinkedHashMap<>(o.details());
        details.put("runner", runner.name());
        details.put("resultsFrom", runner.guarantee());
        return withFindings(o, findings, details);
    }

    /**
     * The outcome scored from tests already distrusted for {@code findings}, carrying them; a finding that
     * voids the run's results gives the reason.
     */
    static Outcome withFindings(Outcome o, List<IntegrityFinding> findings, Map<String, Object> details) {
        IntegrityFinding voiding = findings.stream().filter(IntegrityFinding::voidsResults).findFirst().orElse(null);
        String reason = voiding == null ? o.reason() : "results not trusted: " + voiding.evidence();
        return new Outcome(o.type(), o.reward(), o.verdict(), o.category(), reason, o.partialCredit(), o.tests(), details, o.commandMs(), findings);
    }

    static Outcome error(VerifierSpec v, String why) {
        return new Outcome("test-suite", RewardFormula.reward(v.mode(), Category.RUNTIME_ERROR, 0, 1), Verdict.ERROR.wire(),
                Category.RUNTIME_ERROR.label, why, 0.0, List.of(), Map.of(), 0);
    }

    static String lastLine(String command) {
        String s = command.strip();
        return s.substring(s.lastIndexOf('\n') + 1);
    }

    /**
     * pytest: the grade comes from the grader's reporter over the result channel; the JUnit file
     * pytest writes is only cross-checked against it (it is written inside the graded process).
     */
    private static Outcome gradePytest(VerifierSpec v, GradeContext ctx, Path junit, Duration timeout) {
        PytestReporter.install(ctx.supportDir(), ctx.root(), ctx.graderFiles(), ctx.taskChanges(), ctx.python(), ctx.executor());
        ResultChannel channel = ctx.openChannel();
        Map<String, String> env = new LinkedHashMap<>(ctx.env());
        env.put(PytestReporter.NONCE_VAR, channel.nonce());
        Optional<List<String>> args = PytestCommand.pytestArgs(v.command());
        ExecResult run;
        if (args.isPresent()) {
            List<String> pytestArgs = new ArrayList<>(args.get());
            pytestArgs.addAll(PytestCommand.pluginLoadFilters(env));
            // the cross-check leaves out what cannot change the reward (IsolatedTestSuite#uncheckable)
            IsolatedTestSuite.crossCheckSkips().forEach(id -> pytestArgs.addAll(List.of("--deselect", id)));
            List<String> argv = IsolatedTestSuite.crossChecking() ? PytestCommand.ordinaryArgv(ctx.python(), ctx.supportDir())
                    : PytestCommand.argv(ctx.python(), ctx.supportDir());
            run = ctx.withEnv(env).argv(argv, timeout, channel.path(),
                    PytestCommand.stdin(pytestArgs, ctx.root(), junit, ctx.resultsDir()));
        } else {
            // Another shape (a script, a pipeline): pin pytest's options and load the reporter through the environment.
            List<String> opts = new ArrayList<>(PytestCommand.pinnedOptions(ctx.root(), junit, ctx.resultsDir()));
            opts.addAll(List.of("-p", PytestReporter.MODULE));
            opts.addAll(PytestCommand.pluginLoadFilters(env));
            env.put("PYTHONPATH", ctx.supportDir().toString());
            env.put(dev.crucible.verifier.toolchain.GraderPath.VAR, ctx.supportDir().toString()); // a script that sets PYTHONPATH itself
            OracleEntry.pytest(ctx, opts, env); // the isolated oracle, where this grading has one (after the reporter)
            env.put("PYTEST_ADDOPTS", String.join(" ", opts.stream().map(ShellQuote::quote).toList()));
            if (TestCommand.parse(v.command()).map(c -> c.program().equals("tox")).orElse(false)) {
                // tox 4 passes only listed variables on to pytest (TOX_OVERRIDE: tox 4.11.1 and later)
                env.putIfAbsent("TOX_OVERRIDE", "testenv.pass_env+=PYTEST_ADDOPTS,PYTHONPATH," + dev.crucible.verifier.toolchain.GraderPath.VAR + "," + PytestReporter.NONCE_FILE_VAR
                        + "," + dev.crucible.verifier.grade.oracle.OracleFiles.CONFIG_VAR);
            }
            // a shell line is a wrapper: the nonce reaches only the pytest process that loads the reporter (PytestReporter#NONCE_FILE_VAR)
            Path nonceFile = PytestReporter.nonceThroughFile(env, ctx.resultsDir(), channel.nonce());
            try {
                run = ctx.withEnv(env).shell(v.command(), timeout, null, channel.path());
            } finally {
                PytestReporter.removeNonceFile(nonceFile);
            }
        }
        ResultChannel.Lines lines = channel.finish(CHANNEL_GRACE_MS);
        ChannelReport.Result cr = ChannelReport.parse(lines, channel.nonce(), run.exitCode(), run.timedOut(), args.isPresent(),
                ChannelReport.limitNote(run.stderr()));
        List<IntegrityFinding> findings = new ArrayList<>(cr.findings());
        List<TestCase> junitCases = null;
        try {
            if (Files.isRegularFile(junit)) junitCases = JUnitXmlParser.parse(junit, true);
        } catch (IOException | RuntimeException e) {
            if (cr.reported()) findings.add(UnreadableReport.finding(junit, e));
        }
        if (junitCases != null) findings.addAll(crossCheck(cr, junitCases));
        String reportError = null;
        if (!cr.reported()) {
            reportError = "the grader's pytest reporter never reported (exit " + run.exitCode() + "): " + Tail.of(run.combined());
        }
        else if (cr.stoppedBeforeCollection() != null) reportError = cr.stoppedBeforeCollection() + ": " + Tail.of(run.combined());
        List<TestCase> tests = TestIds.normalise(UnreadableReport.distrust(ChannelReport.distrust(cr.tests(), findings), findings), ctx.root());
        Outcome o = score(v, tests, run, reportError, timeout);
        return withFindings(o, findings, o.details());
    }

    /** The JUnit file must tell the channel's story: a test it counts differently is a finding. */
    static List<IntegrityFinding> crossCheck(ChannelReport.Result cr, List<TestCase> junit) {
        Map<String, TestCase> channel = new LinkedHashMap<>();
        cr.tests().forEach(t -> channel.putIfAbsent(t.id(), t));
        List<IntegrityFinding> out = new ArrayList<>();
        if (!cr.reported() && junit.stream().anyMatch(t -> t.status().counts(false))) {
            out.add(IntegrityFinding.tampering("critical", "junit", "tests were reported only in the JUnit file, never on the result channel"));
            return out;
        }
        for (TestCase j : junit) {
            TestCase c = channel.get(j.id());
            boolean junitPass = j.status().counts(false);
            if (c == null) {
                if (junitPass) out.add(IntegrityFinding.tampering("critical", "junit", "the JUnit file reports " + j.id() + " passed; the result channel never reported it"));
            } else if (junitPass != c.status().counts(false) && c.status() != TestStatus.UNTRUSTED) {
                out.add(IntegrityFinding.tampering("critical", "junit", "the JUnit file says " + j.id() + " " + j.status().json() + ", the result channel " + c.status().json()));
            }
        }
        return out;
    }

    static Outcome score(VerifierSpec v, List<TestCase> reported, ExecResult run, String reportError, Duration timeout) {
        boolean skippedOk = v.skippedCountsAsPassed();
        Map<String, TestCase> byId = new LinkedHashMap<>();
        for (TestCase t : reported) byId.putIfAbsent(t.id(), t);
        List<TestCase> considered = new ArrayList<>();
        boolean swe = !v.failToPass().isEmpty() || !v.passToPass().isEmpty();
        java.util.Set<String> excluded = v.excludedIds();
        int f2p = 0;
        int p2p = 0;
        int p2pTotal = 0;
        if (swe) {
            for (String id : v.failToPass()) {
                TestCase t = pick(byId, id, "failToPass");
                considered.add(t);
                if (t.status().counts(skippedOk)) f2p++;
            }
            for (String id : v.passToPass()) {
                if (excluded.contains(id)) continue;
                TestCase t = pick(byId, id, "passToPass");
                considered.add(t);
                p2pTotal++;
                if (t.status().counts(skippedOk)) p2p++;
            }
            for (TestCase t : reported) {
                if (excluded.contains(t.id())) considered.add(t.withGroup(EXCLUDED));
                else if (!v.failToPass().contains(t.id()) && !v.passToPass().contains(t.id())) considered.add(t.withGroup("other"));
            }
        } else {
            reported.forEach(t -> considered.add(t.withGroup(excluded.contains(t.id()) ? EXCLUDED : "other")));
        }
        List<TestCase> scoring = considered.stream().filter(t -> !t.group().equals(EXCLUDED) && (!swe || !t.group().equals("other"))).toList();
        boolean excludedFailed = considered.stream().anyMatch(t -> t.group().equals(EXCLUDED) && !t.status().counts(skippedOk));
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
        if (cat == Category.PASSED && !swe && run.exitCode() != 0 && !excludedFailed && !v.frameworkOrDefault().equals("tap")) {
            cat = Category.TESTS_FAILED; // the runner says something failed that the report does not show
            reason = "test command exited " + run.exitCode();
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("exitCode", run.exitCode());
        if (swe) {
            details.put("failToPass", Map.of("passed", f2p, "total", v.failToPass().size()));
            details.put("passToPass", Map.of("passed", p2p, "total", p2pTotal));
        }
        if (!v.excludedTests().isEmpty()) {
            details.put("excluded", v.excludedTests().stream().filter(e -> excluded.contains(e.id()))
                    .map(e -> Map.of("id", e.id(), "reason", e.reason())).toList());
        }
        if (cat != Category.PASSED) details.put("outputTail", Tail.of(run.combined()));
        return new Outcome("test-suite", RewardFormula.reward(v.mode(), cat, passed, total), RewardFormula.verdict(cat),
                cat.label, reason, total == 0 ? 0.0 : (double) passed / total, considered, details, run.elapsedMs());
    }

    private static TestCase pick(Map<String, TestCase> byId, String id, String group) {
        TestCase t = byId.get(id);
        return t == null ? new TestCase(id, TestStatus.MISSING, group, null, "listed test did not run") : t.withGroup(group);
    }
}
