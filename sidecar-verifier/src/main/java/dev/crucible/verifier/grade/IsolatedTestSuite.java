package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.exec.GradingPhases;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.oracle.OracleAttempts;
import dev.crucible.verifier.grade.oracle.OracleConfig;
import dev.crucible.verifier.grade.oracle.OracleFiles;
import dev.crucible.verifier.grade.oracle.OracleReport;
import dev.crucible.verifier.grade.oracle.OracleWorkers;
import dev.crucible.verifier.grade.oracle.WorkerHost;
import dev.crucible.verifier.exec.container.GradingContainerExecutor;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.GradingSandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * pytest graded by the isolated oracle (issue 33): the test suite's run loads the oracle's plugin, so the graded
 * tests' assertions, expected values, fixtures and verdicts run in the trusted grading process and the code under
 * test in boxed workers ({@link OracleWorkers}). A test that cannot run split (the oracle's record lists it) is
 * graded again as before, in-process, and only its verdict is taken from that run. Every test and the reward say
 * which: {@code integrity} of each {@link TestCase}, and {@code details.integrity}. Where the oracle cannot run
 * (no bubblewrap box for grading, another command shape, {@code oracle: in-process}) grading is as before, labelled
 * in-process. In a rollout pod the workers run in the pod's oracle-worker container ({@link WorkerHost}) instead.
 */
public final class IsolatedTestSuite implements Strategy {
    /** Set while {@link #inProcess} runs on this thread: grading as before, for the bench's comparison only. */
    private static final ThreadLocal<Boolean> IN_PROCESS = new ThreadLocal<>();
    private final Strategy inner;

    /** {@code work} with pytest graded in-process as before the oracle, on this thread (crucible verify bench compares both). */
    public static <T> T inProcess(java.util.function.Supplier<T> work) {
        Boolean outer = IN_PROCESS.get();
        IN_PROCESS.set(true);
        try {
            return work.get();
        } finally {
            if (outer == null) IN_PROCESS.remove();
            else IN_PROCESS.set(outer);
        }
    }

    /** The reward's label in {@code details.integrity.reward} ({@code isolated} / {@code in-process}), if the outcome has one. */
    public static Optional<String> integrityOf(Map<String, Object> details) {
        return details != null && details.get("integrity") instanceof Map<?, ?> m && m.get("reward") instanceof String s ? Optional.of(s) : Optional.empty();
    }

    IsolatedTestSuite(Strategy inner) { this.inner = inner; }

    @Override
    public Outcome grade(VerifierSpec v, GradeContext ctx) {
        boolean pytestShaped = PytestCommand.pytestArgs(v.command()).isPresent() && (v.framework() == null || v.framework().equals("pytest"));
        String off = !pytestShaped ? "not a pytest command" : why(v, ctx);
        if (off != null) return labelled(inner.grade(v, ctx), pytestShaped, off);
        WorkerHost pod = podHost(ctx).orElse(null);
        // in a pod the FIFOs and scratch folder are on the oracle volume, which the workers see: the record is not
        Path base = pod != null ? pod.base() : ctx.resultsDir().resolve("oracle-" + System.nanoTime());
        Path out = pod != null ? ctx.resultsDir().resolve(base.getFileName() + "-record.json") : base.resolve("record.json");
        try {
            // the grading box's uid writes its record here; the folder is made after that box may have started
            Files.createDirectories(base);
            Files.setPosixFilePermissions(base, java.nio.file.attribute.PosixFilePermissions.fromString(pod != null ? "rwxr-xr-x" : "rwxrwxrwx"));
        } catch (java.io.IOException e) {
            return labelled(inner.grade(v, ctx), true, "could not prepare the oracle's folder: " + e.getMessage());
        }
        List<String> trusted = new ArrayList<>();
        ctx.graderFiles().forEach((rel, e) -> { if (e.test()) trusted.add(rel); });
        Map<String, String> workerEnv = withHiddenData(ctx);
        Outcome isolated;
        long t0 = System.nanoTime();
        // the first worker starts before the plugin's files and configuration are written: its start-up is the longest part
        // the request FIFO lies where the grading process sees it and no worker does: in the pod the results folder
        // (the worker container has none), locally the oracle's folder beside the FIFO folder the worker's box shows
        Path spawn = pod != null ? ctx.resultsDir().resolve(base.getFileName() + "-spawn") : base.resolve("spawn");
        try (WorkerHost.Workers workers = pod != null ? pod.start(base.resolve("fifo"), spawn, ctx.root(), masks(ctx, trusted), base.resolve("tmp"), ctx.python(), workerEnv)
                : new OracleWorkers(base.resolve("fifo"), spawn, ctx.root(), masks(ctx, trusted), base.resolve("tmp"), ctx.python(), workerEnv)) {
            if (pod != null && workers.problem() != null) return labelled(inner.grade(v, ctx), true, workers.problem());
            Path cfg = new OracleConfig(ctx.root(), trusted.isEmpty() ? null : trusted, base.resolve("tmp"), Duration.ofSeconds(60), out,
                    "fifo", base.resolve("fifo"), null, null, spawn).write(OracleFiles.install(ctx.supportDir().resolve("oracle"), ctx.python(), ctx.env()).resolve("config.json"),
                    hiddenData(ctx));
            GradingPhases.since("setup", t0);
            isolated = inner.grade(v, ctx.withOracle(cfg));
        }
        // No record (the trusted run broke before its session ended) falls back to nothing: what the trusted process
        // reported stands, and tests it did not report are missing. Only tests the record says cannot run split are
        // graded again in-process (OracleReport#fallsBack), so the code under test cannot choose where it is graded.
        OracleReport record = OracleReport.read(out);
        // a run that timed out ran its tests split all the same: they fail, labelled where they ran
        if (isolated.reason() != null && isolated.reason().startsWith("test command timed out")) {
            return timedOut(labelled(isolated, true, TestCase.ISOLATED, "the isolated run timed out"), record);
        }
        boolean fallback = !record.modules().isEmpty() || isolated.tests().stream().anyMatch(t -> record.fallsBack(t.id()));
        GradingPhases.add("oracle_wait", (long) (record.startWaitSeconds() * 1e9));
        long t1 = System.nanoTime();
        Outcome again = fallback ? inner.grade(v, ctx) : null;
        if (fallback) GradingPhases.since("oracle_fallback", t1);
        return merged(v, isolated, again, record);
    }

    /**
     * A grading run that hit its time limit says so as a finding, with the tests it left without a result: a stall in the
     * code under test (blind round 8, x23: a 58 s sleep on pre-release input) otherwise reads as a plain failure. Info, as
     * slow honest code times out too; what the record holds of the attempts made before the limit is added.
     */
    static Outcome timedOut(Outcome o, OracleReport record) {
        List<String> missing = o.tests().stream().filter(t -> t.status() == dev.crucible.verifier.grade.result.TestStatus.MISSING
                || t.status() == dev.crucible.verifier.grade.result.TestStatus.ERROR).map(TestCase::id).toList();
        List<IntegrityFinding> findings = new ArrayList<>(o.integrity());
        findings.add(new IntegrityFinding(dev.crucible.contract.DetectorNames.GRADER_TAMPERING, "info", null,
                o.reason() + " while the code under test ran; " + missing.size() + " of " + o.tests().size() + " tests without a result"
                        + (missing.isEmpty() ? "" : ": " + String.join(", ", missing.subList(0, Math.min(10, missing.size())))), "grading-timeout"));
        findings.addAll(OracleAttempts.findings(record.attempts()));
        return TestSuiteStrategy.withFindings(o, findings, o.details());
    }

    /** Why the oracle does not grade this run (null: it does). */
    private static String why(VerifierSpec v, GradeContext ctx) {
        if (v.oracleOrDefault().equals("in-process")) return "oracle: in-process";
        if (Boolean.TRUE.equals(IN_PROCESS.get())) return "graded in-process for comparison";
        Optional<WorkerHost> pod = podHost(ctx);
        if (pod.isPresent()) {
            String p = pod.get().problem();
            return p == null ? null : "no oracle-worker container: " + p;
        }
        if (ctx.executor() instanceof GradingContainerExecutor) return "the pod has no oracle-worker container (an older operator's pod)";
        if (!(ctx.executor() instanceof GradingSandbox)) return "grading is not boxed";
        Box.Availability a = Box.availability();
        return a.ok() ? null : "no bubblewrap box for the oracle's workers: " + a.problem();
    }

    /** A rollout pod's oracle-worker container, where grading runs in the pod's grading container. */
    private static Optional<WorkerHost> podHost(GradeContext ctx) {
        return ctx.executor() instanceof GradingContainerExecutor g ? g.oracle() : Optional.empty();
    }

    /**
     * The grading environment with the hidden test data files named for the worker's audit: the box shows them (a test
     * may hand their path to the code under test), and a read the call did not ask for is an attempt ({@code test-data}).
     */
    static Map<String, String> withHiddenData(GradeContext ctx) {
        List<String> data = hiddenData(ctx);
        if (data.isEmpty()) return ctx.env();
        Map<String, String> env = new LinkedHashMap<>(ctx.env());
        env.put(OracleWorkers.HIDDEN_DATA, String.join("\n", data));
        return env;
    }

    /** The hidden test files that are not Python (golden data), relative: the worker's audit and the trusted side's inotify watch them. */
    static List<String> hiddenData(GradeContext ctx) {
        List<String> data = new ArrayList<>();
        ctx.graderFiles().forEach((rel, e) -> { if (e.test() && e.hidden() && !rel.endsWith(".py") && !rel.contains("\n")) data.add(rel); });
        return data;
    }

    /** Trusted files masked in the worker's view: the grader's test files, or by name when the grader named none. */
    private static List<String> masks(GradeContext ctx, List<String> trusted) {
        if (!trusted.isEmpty()) return trusted.stream().filter(r -> r.endsWith(".py")).toList(); // test data stays readable, as today
        List<String> out = new ArrayList<>();
        try (var s = Files.walk(ctx.root())) {
            s.filter(p -> Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS) && p.toString().endsWith(".py"))
                    .map(p -> ctx.root().relativize(p).toString()).filter(GraderFiles::isTestPath).forEach(out::add);
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            // an unreadable corner of the tree: its files stay visible, as they are to the agent
        }
        return out;
    }

    /**
     * The in-process outcome, each test and the reward labelled in-process: any runner but the oracle's (a wrapper,
     * unittest, go, cargo, a JS runner) runs tests and code in one process, so its results say so too.
     */
    private static Outcome labelled(Outcome o, boolean pytest, String why) {
        return labelled(o, pytest, TestCase.IN_PROCESS, why);
    }

    private static Outcome labelled(Outcome o, boolean pytest, String label, String why) {
        if (!pytest && o.tests().isEmpty()) return o; // no test suite was graded: nothing to label
        List<TestCase> tests = o.tests().stream().map(t -> t.withIntegrity(label)).toList();
        Map<String, Object> details = new LinkedHashMap<>(o.details());
        Map<String, Object> integrity = new LinkedHashMap<>();
        integrity.put("reward", label);
        if (why != null) integrity.put("why", why);
        details.put("integrity", integrity);
        return new Outcome(o.type(), o.reward(), o.verdict(), o.category(), o.reason(), o.partialCredit(), tests, details, o.commandMs(), o.integrity());
    }

    /** The isolated run's verdicts, with those of the in-process run for the tests that could not run split. */
    private static Outcome merged(VerifierSpec v, Outcome isolated, Outcome inProcess, OracleReport record) {
        Map<String, TestCase> byId = new LinkedHashMap<>();
        if (inProcess != null) inProcess.tests().forEach(t -> byId.putIfAbsent(t.id(), t));
        List<TestCase> reported = new ArrayList<>();
        List<String> fellBack = new ArrayList<>();
        for (TestCase t : isolated.tests()) {
            TestCase again = record.fallsBack(t.id()) ? byId.get(t.id()) : null;
            if (again == null) {
                reported.add(t.withIntegrity(TestCase.ISOLATED));
            } else {
                reported.add(again.withIntegrity(TestCase.IN_PROCESS));
                fellBack.add(t.id());
            }
            byId.remove(t.id());
        }
        // tests the isolated run never collected: only those of a module the record says needs in-process grading
        byId.values().stream().filter(t -> record.fallsBack(t.id())).forEach(t -> {
            reported.add(t.withIntegrity(TestCase.IN_PROCESS));
            fellBack.add(t.id());
        });
        Outcome last = inProcess != null ? inProcess : isolated;
        int exit = last.details().get("exitCode") instanceof Integer i ? i : 0;
        ExecResult run = new ExecResult(exit, "", "", false, false, isolated.commandMs() + (inProcess == null ? 0 : inProcess.commandMs()), -1);
        String reportError = isolated.tests().isEmpty() && inProcess != null && inProcess.tests().isEmpty() ? inProcess.reason() : null;
        Outcome o = TestSuiteStrategy.score(v, reported, run, reportError, Duration.ofSeconds(v.timeoutOrDefault()));
        List<IntegrityFinding> findings = new ArrayList<>(isolated.integrity());
        if (inProcess != null) findings.addAll(inProcess.integrity());
        // what the code under test tried; a voiding attempt's evidence says how many tests passed in this grade
        findings.addAll(OracleAttempts.findings(record.attempts(), o.tests().stream().filter(t -> t.status().counts(false)).count(), o.tests().size()));
        Map<String, Object> details = new LinkedHashMap<>(o.details());
        isolated.details().forEach(details::putIfAbsent);
        Map<String, Object> integrity = new LinkedHashMap<>();
        // the tests that count: FAIL_TO_PASS / PASS_TO_PASS where the environment names them, else every test graded
        boolean named = o.tests().stream().anyMatch(t -> !t.group().equals("other") && !t.group().equals(TestSuiteStrategy.EXCLUDED));
        boolean allIsolated = o.tests().stream().filter(t -> !t.group().equals(TestSuiteStrategy.EXCLUDED) && (!named || !t.group().equals("other")))
                .allMatch(t -> TestCase.ISOLATED.equals(t.integrity()));
        integrity.put("reward", allIsolated ? TestCase.ISOLATED : TestCase.IN_PROCESS);
        integrity.put("isolatedTests", o.tests().stream().filter(t -> TestCase.ISOLATED.equals(t.integrity())).count());
        integrity.put("inProcessTests", fellBack.subList(0, Math.min(50, fellBack.size())));
        Map<String, String> reasons = new LinkedHashMap<>();
        record.modules().forEach(reasons::put);
        record.tests().forEach((id, t) -> { if (!t.isolated() && reasons.size() < 20) reasons.put(id, String.join("; ", t.reasons())); });
        if (!reasons.isEmpty()) integrity.put("inProcessBecause", reasons);
        integrity.put("workers", Map.of("starts", record.workerStarts(), "calls", record.calls(), "ended", record.workerEnded(),
                "startWaitMs", Math.round(record.startWaitSeconds() * 1000)));
        details.put("integrity", integrity);
        o = new Outcome(o.type(), o.reward(), o.verdict(), o.category(), o.reason(), o.partialCredit(), o.tests(), details,
                isolated.commandMs() + (inProcess == null ? 0 : inProcess.commandMs()), List.of());
        return TestSuiteStrategy.withFindings(o, findings, details);
    }

    /** The oracle's decorator for {@code inner} (the test-suite strategy). */
    static Strategy around(Strategy inner) { return new IsolatedTestSuite(inner); }
}
