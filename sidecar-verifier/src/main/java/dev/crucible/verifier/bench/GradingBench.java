package dev.crucible.verifier.bench;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.ResetResult;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.exec.GradingPhases;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.GradingSandbox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Grading overhead: the environment's test command run bare in the workspace (the same command,
 * unboxed, without the grader's reporter, the resolved interpreter first on PATH) against a full
 * verify (kill sweep, final monitor scan, grading tree, boxed hardened pytest with the reporter,
 * parsing), alternating in one invocation so load from elsewhere hits both, medians over N runs,
 * with where the graded time went ({@link PhaseBreakdown}). On the environment's own suite and,
 * unless disabled, on a larger {@link SyntheticSuite}, so fixed and per-test overhead show apart, and on a
 * {@link CallHeavySuite} whose tests do little but call the code under test (the isolated oracle's cost per call), and on a
 * {@link ChildSuite} whose tests each start the package's program (the cost of a started process's own box).
 * Plus the monitor thread's CPU time over wall time while an agent works in the workspace.
 */
public final class GradingBench {
    private GradingBench() {}

    /**
     * One suite: medians of bare and graded seconds over {@code runs} of each, the phases of the graded runs,
     * how many tests it has, and the 1-minute load average when its runs began and ended (figures from a
     * loaded machine compare only with figures taken at a similar load). {@code gradedSeconds} is what a
     * real run waits after the agent's end, its interpreter started while the agent worked;
     * {@code coldSeconds} the same grading with nothing started early (NaN when that could not run).
     */
    public record Suite(String name, int tests, double bareSeconds, double gradedSeconds, double coldSeconds, PhaseBreakdown phases, int runs,
                        double loadStart, double loadEnd, double inProcessSeconds, String integrity, long oracleCalls) {
        public double overheadRatio() { return gradedSeconds / bareSeconds; }

        /** The graded time against today's in-process grading of the same suite (issue 33's target: at most 1.3). */
        public double isolatedRatio() { return gradedSeconds / inProcessSeconds; }

        public double coldOverheadRatio() { return coldSeconds / bareSeconds; }

        public String line() {
            return String.format(Locale.ROOT, "suite=%s tests=%d bare_s=%.3f graded_s=%.3f overhead_s=%.3f overhead_ratio=%.3f cold_graded_s=%.3f cold_overhead_ratio=%.3f"
                            + " integrity=%s inprocess_graded_s=%.3f isolated_vs_inprocess=%.3f oracle_calls=%d runs=%d load=%.2f-%.2f",
                    name, tests, bareSeconds, gradedSeconds, gradedSeconds - bareSeconds, overheadRatio(), coldSeconds, coldOverheadRatio(),
                    integrity, inProcessSeconds, isolatedRatio(), oracleCalls, runs, loadStart, loadEnd);
        }
    }

    /** How long the bench's stand-in agent works before grading (a real agent takes seconds to hours). */
    static final Duration AGENT_WORK = Duration.ofSeconds(1);

    /**
     * {@code gradingSandbox}: "box" when graded commands ran in the grading sandbox, as in a real run; else why not.
     * {@code synthetic}, {@code calls} (the call-heavy suite) and {@code children} (the CLI suite) are null when they were not run.
     */
    public record Result(Suite example, Suite synthetic, Suite calls, Suite children, double monitorCpuPct, int runs, String python,
                         String gradingSandbox) {
        public double bareSeconds() { return example.bareSeconds(); }

        public double gradedSeconds() { return example.gradedSeconds(); }

        public double overheadRatio() { return example.overheadRatio(); }

        /** The summary line (the environment's suite), printed last. */
        public String line() {
            return String.format(Locale.ROOT, "bare_s=%.3f graded_s=%.3f overhead_ratio=%.3f cold_overhead_ratio=%.3f monitor_cpu_pct=%.3f grading=%s integrity=%s isolated_vs_inprocess=%.3f%s",
                    bareSeconds(), gradedSeconds(), overheadRatio(), example.coldOverheadRatio(), monitorCpuPct, gradingSandbox, example.integrity(),
                    example.isolatedRatio(), synthetic == null ? "" : String.format(Locale.ROOT, " synthetic_isolated_vs_inprocess=%.3f", synthetic.isolatedRatio()))
                    + (calls == null ? "" : String.format(Locale.ROOT, " calls_isolated_vs_inprocess=%.3f", calls.isolatedRatio()))
                    + (children == null ? "" : String.format(Locale.ROOT, " children_isolated_vs_inprocess=%.3f", children.isolatedRatio()));
        }

        /** Everything, one line each: per suite its phases and figures, then {@link #line()}. */
        public List<String> lines() {
            List<String> out = new ArrayList<>();
            List<Suite> suites = new ArrayList<>(List.of(example));
            if (synthetic != null) suites.add(synthetic);
            if (calls != null) suites.add(calls);
            if (children != null) suites.add(children);
            for (Suite s : suites) {
                out.add(s.phases().line(s.name(), runs));
                out.add(s.line());
            }
            out.add(line());
            return out;
        }
    }

    public static Result run(Environment env, Path workspace, int runs, Duration monitorWindow) {
        return run(env, workspace, runs, monitorWindow, 0);
    }

    /** {@code syntheticTests}: size of the synthetic suite (0: not run). */
    public static Result run(Environment env, Path workspace, int runs, Duration monitorWindow, int syntheticTests) {
        return run(env, workspace, runs, monitorWindow, syntheticTests, 0);
    }

    /** {@code callTests}: size of the call-heavy suite (0: not run). */
    public static Result run(Environment env, Path workspace, int runs, Duration monitorWindow, int syntheticTests, int callTests) {
        return run(env, workspace, runs, monitorWindow, syntheticTests, callTests, 0);
    }

    /** {@code childTests}: size of the CLI suite, each test starting a process (0: not run). */
    public static Result run(Environment env, Path workspace, int runs, Duration monitorWindow, int syntheticTests, int callTests,
                             int childTests) {
        Path tmp = tempDir();
        try {
            double[] cpuPct = {0};
            String[] python = {null};
            Suite example = measure(env, "example", workspace, tmp.resolve("example"), runs, monitorWindow, cpuPct, python);
            Suite synthetic = null;
            if (syntheticTests > 0) {
                Environment syn = Environment.load(SyntheticSuite.write(tmp.resolve("synthetic-src"), syntheticTests));
                synthetic = measure(syn, "synthetic", syn.workspacePath().orElseThrow(), tmp.resolve("synthetic"), runs, null, null, null);
            }
            Suite calls = null;
            if (callTests > 0) {
                Environment ch = Environment.load(CallHeavySuite.write(tmp.resolve("calls-src"), callTests));
                calls = measure(ch, "calls", ch.workspacePath().orElseThrow(), tmp.resolve("calls"), runs, null, null, null);
            }
            Suite children = null;
            if (childTests > 0) {
                Environment cs = Environment.load(ChildSuite.write(tmp.resolve("children-src"), childTests));
                children = measure(cs, "children", cs.workspacePath().orElseThrow(), tmp.resolve("children"), runs, null, null, null);
            }
            return new Result(example, synthetic, calls, children, cpuPct[0], runs, python[0], Box.availability().ok() ? "box" : "unconfined");
        } finally {
            deleteQuietly(tmp);
        }
    }

    private static Suite measure(Environment env, String name, Path workspace, Path dir, int runs, Duration monitorWindow,
                                 double[] cpuPctOut, String[] pythonOut) {
        Path ws = dir.resolve("workspace");
        copy(workspace, ws);
        // A state folder of its own under the temp folder, 0700, as a real run's (crucible run makes one the same way).
        Path state;
        try {
            state = Files.createTempDirectory("crucible-bench-state-", java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        EpisodeOptions opts = EpisodeOptions.defaults().withStateDir(state);
        // Graded as a real run grades: each graded command in its own box (the bare run is the command alone).
        GradingSandbox sandbox = Box.availability().ok() ? new GradingSandbox(BoxLimits.defaults()) : null;
        if (sandbox != null) opts = opts.withGradingExecutor(sandbox);
        try (Episode ep = new Episode(env, ws, opts)) {
            ResetResult reset = ep.reset();
            if (pythonOut != null) pythonOut[0] = reset.python();
            String pyDir = reset.python() == null ? "" : Path.of(reset.python()).getParent() + ":";
            Map<String, String> bareEnv = Map.of("PATH", pyDir + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            // Warm-up: the first run pays for cold caches on both sides.
            bare(env, ws, bareEnv);
            if (monitorWindow != null) {
                // Monitor cost: its thread's CPU over a window in which an agent keeps running the tests.
                long monitorCpu0 = ep.monitor().cpuNanos();
                long wall0 = System.nanoTime();
                do {
                    bare(env, ws, bareEnv);
                } while (System.nanoTime() - wall0 < monitorWindow.toNanos());
                cpuPctOut[0] = 100.0 * (ep.monitor().cpuNanos() - monitorCpu0) / (System.nanoTime() - wall0);
            }
            Path edited = agentEdit(ws, null);
            VerifyReport first = ep.verify();
            int tests = first.tests() == null ? 0 : first.tests().total();
            String integrity = dev.crucible.verifier.grade.IsolatedTestSuite.integrityOf(first.details()).orElse("none");
            if (tests == 0) throw new IllegalStateException(name + " suite: grading ran no test (" + first.verdict() + ": " + first.reason() + ")");
            // Bare and graded runs alternate, and which goes first alternates too, so that load from elsewhere hits both alike.
            List<Double> bare = new ArrayList<>();
            List<Double> graded = new ArrayList<>();
            List<Double> cold = new ArrayList<>();
            List<Double> inProcess = new ArrayList<>();
            List<GradingPhases> phases = new ArrayList<>();
            List<GradingPhases> inProcessPhases = new ArrayList<>();
            List<Double> bareStart = new ArrayList<>();
            List<Double> boxedBare = new ArrayList<>();
            double load0 = loadAverage();
            for (int i = 0; i < runs; i++) {
                bareStart.add(bareStart(ws, bareEnv));
                if (i % 2 == 0) bare.add(bare(env, ws, bareEnv));
                if (BOXED_BARE) boxedBare.add(boxedBare(env, ws, bareEnv, dir));
                ep.reset();
                agentEdit(ws, edited);
                sleep(AGENT_WORK);
                long t0 = System.nanoTime();
                GradingPhases.Recorded<VerifyReport> r = GradingPhases.record(ep::verify);
                graded.add((System.nanoTime() - t0) / 1e9);
                phases.add(r.phases());
                { // today's grading of the same suite (pytest in-process, as before the isolated oracle), also started early
                    ep.reset();
                    agentEdit(ws, edited);
                    sleep(AGENT_WORK);
                    long t2 = System.nanoTime();
                    inProcessPhases.add(GradingPhases.record(() -> dev.crucible.verifier.grade.IsolatedTestSuite.inProcess(ep::verify)).phases());
                    inProcess.add((System.nanoTime() - t2) / 1e9);
                }
                if (sandbox != null) { // the same grading with nothing started early
                    sandbox.setPrestarting(false);
                    try {
                        ep.reset();
                        agentEdit(ws, edited);
                        sleep(AGENT_WORK);
                        long t1 = System.nanoTime();
                        ep.verify();
                        cold.add((System.nanoTime() - t1) / 1e9);
                    } finally {
                        sandbox.setPrestarting(true);
                    }
                }
                if (i % 2 == 1) bare.add(bare(env, ws, bareEnv));
            }
            PhaseBreakdown pb = PhaseBreakdown.of(phases).with("bare_start", PhaseBreakdown.median(bareStart));
            // the in-process grading's own phases where the isolated one differs (its pytest, its exit), to see the oracle's cost apart
            PhaseBreakdown ip = PhaseBreakdown.of(inProcessPhases);
            for (String k : List.of("box_start", "pytest", "exit")) pb = pb.with("inprocess_" + k, ip.ms().getOrDefault(k, Double.NaN));
            if (!boxedBare.isEmpty()) pb = pb.with("boxed_bare", 1000 * PhaseBreakdown.median(boxedBare));
            double coldMedian = cold.isEmpty() ? Double.NaN : PhaseBreakdown.median(cold);
            return new Suite(name, tests, PhaseBreakdown.median(bare), PhaseBreakdown.median(graded), coldMedian, pb, runs, load0, loadAverage(),
                    PhaseBreakdown.median(inProcess), integrity, oracleCalls(first));
        } finally {
            deleteQuietly(state);
        }
    }

    /** Round trips to the isolated oracle's workers in {@code r}'s grading (each a wake-up of both processes; 0: none). */
    private static long oracleCalls(VerifyReport r) {
        return r.details() != null && r.details().get("integrity") instanceof Map<?, ?> m && m.get("workers") instanceof Map<?, ?> w
                && w.get("calls") instanceof Number n ? n.longValue() : 0;
    }

    /**
     * What an agent leaves before grading: a changed source file (a comment line, new each time, so no
     * cache has seen it), which the monitor's last scan parses, as after a real episode. Bare runs see it too.
     */
    private static Path agentEdit(Path ws, Path file) {
        try {
            if (file == null) {
                try (var s = Files.walk(ws)) {
                    file = s.filter(p -> p.toString().endsWith(".py") && !ws.relativize(p).toString().contains("test"))
                            .sorted().findFirst().orElse(null);
                }
            }
            if (file != null) Files.writeString(file, "\n# edited by the bench's agent " + System.nanoTime() + "\n", java.nio.file.StandardOpenOption.APPEND);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The environment's command as an agent would type it: {@code sh -c}, in the workspace, nothing of
     * grading. It starts without byte code, as graded runs do (grading never uses the workspace's): what
     * it writes is removed after it.
     */
    private static double bare(Environment env, Path ws, Map<String, String> envVars) {
        ExecRequest req = new ExecRequest(dev.crucible.verifier.exec.Shell.argv(env.verifier().command()), ws, envVars, false,
                Duration.ofSeconds(env.verifier().timeoutOrDefault()), 1 << 20, null, true);
        ExecResult r = new LocalExecutor().run(req);
        try (var s = Files.walk(ws)) {
            s.filter(p -> p.getFileName() != null && p.getFileName().toString().equals("__pycache__")).toList().forEach(GradingBench::deleteQuietly);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return r.elapsedMs() / 1e3;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The 1-minute load average (NaN where /proc/loadavg cannot be read). */
    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    static final boolean BOXED_BARE = Boolean.getBoolean("crucible.bench.boxedBare");

    /** The bare command in a box like grading's (diagnostic: what the box alone costs the same command). */
    private static double boxedBare(Environment env, Path ws, Map<String, String> envVars, Path dir) {
        Path scratch = dir.resolve("boxed-scratch");
        try {
            Files.createDirectories(scratch);
            try (Box box = Box.open(dev.crucible.verifier.sandbox.BoxSpec.of("bench-bare", BoxLimits.defaults()).withWritable(scratch)
                    .withReadOnly(List.of(ws)).withHome(null))) {
                ExecRequest req = new ExecRequest(box.wrap(dev.crucible.verifier.exec.Shell.argv(env.verifier().command()), ws, envVars), ws, envVars, false,
                        Duration.ofSeconds(env.verifier().timeoutOrDefault()), 1 << 20, null, true);
                ExecResult r = new LocalExecutor().run(req, box::attach);
                return r.elapsedMs() / 1e3;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Milliseconds from launching the bare command's interpreter (as the bare run does: {@code sh -c}, the
     * same PATH) to its first statement: the part of {@code box_start} that a bare run pays too.
     */
    private static double bareStart(Path ws, Map<String, String> envVars) {
        long launch = GradingPhases.nowMicros();
        ExecRequest req = new ExecRequest(List.of("/bin/sh", "-c", "python3 -I -c 'import time; print(int(time.time() * 1e6))'"), ws, envVars, false,
                Duration.ofSeconds(60), 4096, null, false);
        ExecResult r = new LocalExecutor().run(req);
        try {
            return (Long.parseLong(r.stdout().strip()) - launch) / 1e3;
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("crucible-bench-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void copy(Path src, Path dst) {
        try (var s = Files.walk(src)) {
            for (Path p : s.toList()) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(t);
                else if (!p.toString().contains("__pycache__")) Files.copy(p, t);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteQuietly(Path p) {
        try (var s = Files.walk(p)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        } catch (IOException ignored) {
            // temp files; the OS cleans up
        }
    }
}
