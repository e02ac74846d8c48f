package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.TestIds;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.JUnitXmlParser;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.grade.shell.ShellQuote;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.runner.TestCommand;
import dev.crucible.verifier.grade.runner.WrappedRunners;
import dev.crucible.verifier.toolchain.GraderPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A test command that is not itself a runner the grader knows ({@code make test}, {@code ./ci/test.sh},
 * {@code tox}, {@code nox -s tests}): run once as written, with every runner it may start instrumented
 * through the environment: pytest through {@code PYTEST_ADDOPTS} (the grader's reporter and result channel,
 * as for any pytest command of another shape), the others through {@link WrappedRunners}. Their tests are
 * scored together. A run in which no instrumented runner ran has no per-test results: without
 * failToPass/passToPass it is graded as one execution by its exit status, and the reason says so
 * ({@code details.perTest: false}); with lists, every listed test is missing.
 */
final class WrappedGrading {
    /** Variables tox 4 must pass on to the commands it runs (it passes only listed ones). */
    private static final List<String> PASSED_ON = List.of("PYTEST_ADDOPTS", "PYTHONPATH", GraderPath.VAR, PytestReporter.NONCE_FILE_VAR,
            "PYTHONDONTWRITEBYTECODE", "NODE_OPTIONS", "CARGO_TERM_COLOR", "NO_COLOR", dev.crucible.verifier.grade.oracle.OracleFiles.CONFIG_VAR);

    private WrappedGrading() {}

    /** Whether {@code command} should be graded this way: its last line is no pytest the grader can run itself. */
    static boolean applies(String command) {
        if (PytestCommand.pytestArgs(command).isPresent()) return false;
        return TestCommand.parse(command).map(c -> !c.program().equals("pytest") && !c.program().equals("py.test")
                && !(c.runsPython() && c.arg(1).equals("-m") && c.arg(2).equals("pytest"))).orElse(true);
    }

    static Outcome grade(VerifierSpec v, GradeContext ctx, Duration timeout) {
        Path out = ctx.resultsDir().resolve("wrapped-" + System.nanoTime());
        Path junit = ctx.resultsDir().resolve("junit-" + System.nanoTime() + ".xml");
        Map<String, String> env = new LinkedHashMap<>(ctx.env());
        try {
            Files.createDirectories(ctx.resultsDir());
            Files.createDirectory(out); // fails when it exists: nothing in it predates this run
            env.putAll(WrappedRunners.prepare(out, ctx.env()));
        } catch (IOException | RuntimeException e) {
            return TestSuiteStrategy.error(v, "could not prepare the wrapped runners' folder: " + e.getMessage());
        }
        PytestReporter.install(ctx.supportDir(), ctx.root(), ctx.graderFiles(), ctx.taskChanges(), ctx.python(), ctx.executor());
        ResultChannel channel = ctx.openChannel();
        // the nonce reaches only the pytest process that loads the reporter: a file it reads and deletes, never the wrapper's environment
        Path nonceFile = PytestReporter.nonceThroughFile(env, ctx.resultsDir(), channel.nonce());
        List<String> opts = new ArrayList<>(PytestCommand.pinnedOptions(ctx.root(), junit, ctx.resultsDir()));
        opts.addAll(List.of("-p", PytestReporter.MODULE));
        opts.addAll(PytestCommand.pluginLoadFilters(env));
        String path = ctx.env().get("PYTHONPATH");
        env.put("PYTHONPATH", WrappedRunners.pythonPath(out) + ":" + ctx.supportDir() + (path == null || path.isBlank() ? "" : ":" + path));
        env.put(GraderPath.VAR, WrappedRunners.pythonPath(out) + ":" + ctx.supportDir()); // for a wrapper that sets PYTHONPATH itself
        OracleEntry.pytest(ctx, opts, env); // wherever the wrapper starts pytest, the isolated oracle's plugin loads there too
        String own = String.join(" ", opts.stream().map(ShellQuote::quote).toList());
        String prior = ctx.env().get("PYTEST_ADDOPTS");
        env.put("PYTEST_ADDOPTS", prior == null || prior.isBlank() ? own : prior + " " + own);
        env.put("PYTHONDONTWRITEBYTECODE", "1"); // a writable tree: byte code there would be a finding, and is not needed
        if (TestCommand.parse(v.command()).map(c -> c.program().equals("tox")).orElse(false)) {
            env.putIfAbsent("TOX_OVERRIDE", "testenv.pass_env+=" + String.join(",", PASSED_ON)); // tox 4.11.1 and later
        }
        ExecRequest req = new ExecRequest(dev.crucible.verifier.exec.Shell.argv(v.command()), ctx.root(), env, true, timeout,
                TestSuiteStrategy.RUNNER_MAX_OUTPUT, null, true, channel.path()); // stderr merged in order: cargo names each binary there
        TreeWrites.Run graded;
        try {
            graded = TreeWrites.run(ctx, req, TreeWrites.mayWrite(v.command()));
        } finally {
            PytestReporter.removeNonceFile(nonceFile);
        }
        ExecResult run = graded.result();
        ResultChannel.Lines lines = channel.finish(TestSuiteStrategy.CHANNEL_GRACE_MS);
        ChannelReport.Result cr = ChannelReport.parse(lines, channel.nonce(), run.exitCode(), run.timedOut(), false,
                ChannelReport.limitNote(run.stderr()));
        List<IntegrityFinding> findings = new ArrayList<>(cr.findings());
        if (cr.reported()) {
            try {
                if (Files.isRegularFile(junit)) findings.addAll(TestSuiteStrategy.crossCheck(cr, JUnitXmlParser.parse(junit, true)));
            } catch (IOException | RuntimeException e) {
                findings.add(UnreadableReport.finding(junit, e));
            }
        }
        WrappedRunners.Report others = WrappedRunners.read(run, out, ctx.root());
        findings.addAll(others.findings());
        findings.addAll(graded.findings());
        List<String> runners = new ArrayList<>();
        if (cr.reported()) runners.add("pytest");
        runners.addAll(others.runners());
        List<TestCase> tests = new ArrayList<>(cr.tests());
        tests.addAll(others.tests());
        boolean lists = !v.failToPass().isEmpty() || !v.passToPass().isEmpty();
        if (runners.isEmpty() && !lists && !run.timedOut()) return oneExecution(v, run, graded.findings());
        String reportError = runners.isEmpty() ? noResults(v.command(), run)
                : tests.isEmpty() && !others.errors().isEmpty() ? String.join("; ", others.errors())
                : tests.isEmpty() && cr.stoppedBeforeCollection() != null ? cr.stoppedBeforeCollection() + ": " + Tail.of(run.combined()) : null;
        Outcome o = TestSuiteStrategy.score(v, TestIds.normalise(UnreadableReport.distrust(ChannelReport.distrust(tests, findings), findings), ctx.root()),
                run, reportError, timeout);
        Map<String, Object> details = new LinkedHashMap<>(o.details());
        details.put("runner", runners.isEmpty() ? "none" : String.join(", ", runners));
        details.put("perTest", !runners.isEmpty());
        if (!others.errors().isEmpty()) details.put("reportErrors", others.errors());
        details.put("resultsFrom", "the runners the wrapper started, instrumented through the environment (PYTEST_ADDOPTS, NODE_OPTIONS, a go first on PATH, libtest's lines)");
        return TestSuiteStrategy.withFindings(o, findings, details);
    }

    private static String noResults(String command, ExecResult run) {
        return "no per-test results: no runner the grader instruments (pytest, unittest, go test, cargo test, node --test, jest, vitest, mocha) ran in "
                + TestSuiteStrategy.lastLine(command) + " (exit " + run.exitCode() + ")";
    }

    /** No runner reported: the command is graded as one execution, and the outcome says why. */
    private static Outcome oneExecution(VerifierSpec v, ExecResult run, List<IntegrityFinding> findings) {
        IntegrityFinding voiding = findings.stream().filter(IntegrityFinding::voidsResults).findFirst().orElse(null);
        boolean ok = run.ok() && voiding == null;
        Category c = ok ? Category.PASSED : Category.RUNTIME_ERROR;
        String reason = (voiding != null ? "results not trusted: " + voiding.evidence() + "; " : "")
                + noResults(v.command(), run) + "; graded as one execution";
        TestCase t = new TestCase("execution", ok ? TestStatus.PASSED : TestStatus.ERROR, "other", run.elapsedMs(),
                ok ? null : Tail.of(run.combined()));
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("exitCode", run.exitCode());
        details.put("runner", "none");
        details.put("perTest", false);
        if (!ok) details.put("outputTail", Tail.of(run.combined()));
        return new Outcome("test-suite", RewardFormula.reward(v.mode(), c, ok ? 1 : 0, 1), RewardFormula.verdict(c),
                c.label, reason, ok ? 1.0 : 0.0, List.of(t), details, run.elapsedMs(), findings);
    }
}
