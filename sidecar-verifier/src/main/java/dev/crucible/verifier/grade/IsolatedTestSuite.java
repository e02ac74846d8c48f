package dev.crucible.verifier.grade;

import dev.crucible.verifier.exec.SharedTmp;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.exec.GradingPhases;
import dev.crucible.verifier.config.VerifierSpec;
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
    /**
     * Set while the cross-check run grades on this thread: its pytest starts as a user's would ({@link PytestCommand#ordinaryArgv}),
     * and the tests it need not run (failed as graded, or not counted) are deselected.
     */
    private static final ThreadLocal<List<String>> CROSS_CHECK = new ThreadLocal<>();

    /** Whether the grading on this thread is the cross-check run (see {@link IsolatedVerdicts#crossChecked}). */
    static boolean crossChecking() { return CROSS_CHECK.get() != null; }

    /** The test ids the cross-check run on this thread leaves out (pytest's {@code --deselect}); empty when none or not cross-checking. */
    static List<String> crossCheckSkips() {
        List<String> skips = CROSS_CHECK.get();
        return skips == null ? List.of() : skips;
    }
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
        // pytest behind a wrapper or prefix, unittest: the oracle enters the processes the command starts (OracleEntry)
        boolean entry = !pytestShaped && OracleEntry.applies(v, ctx);
        String off = !pytestShaped && !entry ? "not a pytest or unittest command" : why(v, ctx);
        if (off != null) return labelled(inner.grade(v, ctx), pytestShaped || entry, off);
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
        List<String> masked = new ArrayList<>(masks(ctx, trusted));
        if (entry) OracleEntry.scriptMasks(v, ctx).stream().filter(m -> !masked.contains(m)).forEach(masked::add);
        Map<String, String> workerEnv = withHiddenData(ctx);
        Outcome isolated;
        long t0 = System.nanoTime();
        // the first worker starts before the plugin's files and configuration are written: its start-up is the longest part
        // the request FIFO lies where the grading process sees it and no worker does: in the pod the results folder
        // (the worker container has none), locally the oracle's folder beside the FIFO folder the worker's box shows
        Path spawn = pod != null ? ctx.resultsDir().resolve(base.getFileName() + "-spawn") : base.resolve("spawn");
        // the scratch folder both sides see (tmp_path, the workers' TMPDIR): boxed, at a short path in every box (SharedTmp)
        boolean boxed = pod == null && ctx.executor() instanceof GradingSandbox
                && Files.isDirectory(SharedTmp.of(ctx.resultsDir()), java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Path shared = boxed ? SharedTmp.of(ctx.resultsDir()).resolve(base.getFileName().toString()) : base.resolve("tmp");
        Path sharedAt = boxed ? SharedTmp.inBox(ctx.resultsDir(), shared) : shared;
        try (WorkerHost.Workers workers = pod != null ? pod.start(base.resolve("fifo"), spawn, ctx.root(), masked, shared, ctx.python(), workerEnv)
                : new OracleWorkers(base.resolve("fifo"), spawn, ctx.root(), masked, shared, ctx.python(), workerEnv,
                        ctx.agentRoot(), hiddenFiles(ctx), sharedAt,
                        ctx.executor() instanceof GradingSandbox g ? g.limits().memoryBytes() : 0,
                        ctx.executor() instanceof GradingSandbox ? GradingSandbox.uidGroup(ctx.resultsDir()) : null)) {
            if (pod != null && workers.problem() != null) return labelled(inner.grade(v, ctx), true, workers.problem());
            Path cfg = new OracleConfig(ctx.root(), trusted.isEmpty() ? null : trusted, sharedAt, Duration.ofSeconds(60), out,
                    "fifo", base.resolve("fifo"), null, null, spawn).write(OracleFiles.install(ctx.supportDir().resolve("oracle"), ctx.python(), ctx.env()).resolve("config.json"),
                    hiddenData(ctx), OracleConfig.ROUND_TRIP_BUDGET, pod != null ? null : OracleWorkers.shownAt(ctx.root(), ctx.agentRoot()));
            if (entry) OracleEntry.forEntry(cfg, ctx.python(), ctx.env()); // a process the grader does not start checks its interpreter
            GradingPhases.since("setup", t0);
            isolated = inner.grade(v, ctx.withOracle(cfg));
        }
        // No record (the trusted run broke before its session ended) falls back to nothing: what the trusted process
        // reported stands, and tests it did not report are missing. Only tests the record says cannot run split are
        // graded again in-process (OracleReport#fallsBack), so the code under test cannot choose where it is graded.
        OracleReport record = OracleReport.read(out).forTree(ctx.root());
        // a run that timed out ran its tests split all the same: they fail, labelled where they ran
        if (isolated.reason() != null && isolated.reason().startsWith("test command timed out")) {
            return IsolatedVerdicts.timedOut(labelled(isolated, true, TestCase.ISOLATED, "the isolated run timed out"), record);
        }
        boolean fallback = !record.modules().isEmpty() || isolated.tests().stream().anyMatch(t -> record.fallsBack(t.id()));
        GradingPhases.add("oracle_wait", (long) (record.startWaitSeconds() * 1e9));
        long t1 = System.nanoTime();
        Outcome again = fallback ? inner.grade(v, ctx) : null;
        if (fallback) GradingPhases.since("oracle_fallback", t1);
        IsolatedVerdicts.EntryRun entryRun = entry ? IsolatedVerdicts.EntryRun.of(out, record) : null;
        Outcome graded = IsolatedVerdicts.merged(v, isolated, again, null, record, entryRun);
        // the cross-check (blind round 10, x23/x43): a grade that earns something is graded again in-process, in an
        // interpreter started as a user's, and a test counts as passed only where that run passes it too
        if (graded.reward() <= 0) return graded;
        long t2 = System.nanoTime();
        // only what can still count: a test that failed as graded stays failed whatever the cross-check says (AND), and one
        // outside the reward (not FAIL_TO_PASS/PASS_TO_PASS where those are named, excluded) changes no reward
        List<String> skips = IsolatedVerdicts.uncheckable(v, graded);
        CROSS_CHECK.set(skips);
        Outcome ordinary;
        try {
            ordinary = inner.grade(v, asAUsersRun(ctx, boxed));
        } finally {
            CROSS_CHECK.remove();
        }
        GradingPhases.since("oracle_crosscheck", t2);
        return IsolatedVerdicts.merged(v, isolated, again, ordinary, record, entryRun, java.util.Set.copyOf(skips));
    }

    /**
     * The cross-check's context: as close to the agent's box (a user's run) as grading allows, so a tree that tells grading
     * by what only grading has gets caught by it (blind round 14: x01 applied its fix only where the oracle's shared
     * scratch /tmp/.crucible-shared exists, x02 only where TMPDIR is set; both forged reward 1 through both runs). The
     * workers are gone: their shared scratch is removed (the box binds it only while it exists), and TMPDIR is unset
     * as in the agent's box (tempfile falls back to the box's own /tmp, the same folder).
     */
    private static GradeContext asAUsersRun(GradeContext ctx, boolean boxed) {
        if (!boxed) return ctx;
        Path shared = SharedTmp.of(ctx.resultsDir());
        if (dev.crucible.verifier.pristine.TreeCopy.delete(shared, Duration.ofSeconds(30)) != null) return ctx; // could not: as before
        Map<String, String> env = new java.util.LinkedHashMap<>(ctx.env());
        env.remove("TMPDIR");
        return ctx.withEnv(env);
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

    /** The hidden test files (relative, Python and data): the agent's box never listed them, so the worker's copy leaves them out. */
    static List<String> hiddenFiles(GradeContext ctx) {
        List<String> out = new ArrayList<>();
        ctx.graderFiles().forEach((rel, e) -> { if (e.test() && e.hidden() && !rel.contains("\n")) out.add(rel); });
        return out;
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

    /** The oracle's decorator for {@code inner} (the test-suite strategy). */
    static Strategy around(Strategy inner) { return new IsolatedTestSuite(inner); }
}
