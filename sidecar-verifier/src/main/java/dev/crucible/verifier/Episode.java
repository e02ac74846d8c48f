package dev.crucible.verifier;

import dev.crucible.verifier.pristine.TreeRemoval;
import dev.crucible.verifier.pristine.TreeCopy;
import dev.crucible.contract.PolicyAction;
import dev.crucible.contract.SpecDefaults;
import dev.crucible.verifier.config.ConfigException;
import dev.crucible.verifier.config.EnvironmentSpec;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.ProcessTable;
import dev.crucible.verifier.exec.ProcessTreeKiller;
import dev.crucible.verifier.grade.GradeContext;
import dev.crucible.verifier.grade.GraderFiles;
import dev.crucible.verifier.exec.GradingPhases;
import dev.crucible.verifier.grade.Outcome;
import dev.crucible.verifier.grade.Strategy;
import dev.crucible.contract.DetectorNames;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.monitor.HackMonitor;
import dev.crucible.verifier.monitor.MonitorConfig;
import dev.crucible.verifier.pristine.GradingTree;
import dev.crucible.verifier.pristine.PristineSnapshot;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.pristine.SetupDependencies;
import dev.crucible.verifier.tools.BadToolCallException;
import dev.crucible.verifier.tools.ToolCall;
import dev.crucible.verifier.tools.ToolResult;
import dev.crucible.verifier.tools.Tools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One episode of an environment on a workspace: reset → step* → verify. Used by the sidecar's HTTP
 * API, by {@code crucible verify}, and by the local runtime, which runs its agent as an external
 * process and registers it with {@link #attachAgentProcess} so the monitor watches it and grading
 * kills it first.
 */
public final class Episode implements AutoCloseable {
    public enum State { NEW, RUNNING, TERMINATED, GRADED }

    private final Environment env;
    private final Path workspace;
    private final EpisodeOptions opt;
    private final ReentrantLock lock = new ReentrantLock();
    private final Set<Long> agentPids = ConcurrentHashMap.newKeySet();
    private final boolean ownsStateDir;
    private final Path stateDir;
    private volatile State state = State.NEW;
    private Path initialCopy;
    private PristineSnapshot pristine;
    private Path taskGit; // the task repository's .git before the agent ran (TaskGit), or null
    private SetupDependencies deps; // node_modules as setup left it: graded with only while unchanged
    private PythonInfo python = PythonInfo.NONE;
    private volatile HackMonitor monitor;
    private Tools tools;
    private int steps;
    private long startedAfterTicks;
    private int resets;
    private VerifyReport lastReport;
    private EarlyGrading early;
    /** The last grading tree's removal, off the grading path; joined before the next reset and at close. */
    private final TreeRemoval treeRemoval = new TreeRemoval();

    public Episode(Environment env, Path workspace, EpisodeOptions options) {
        this.env = env;
        this.workspace = workspace.toAbsolutePath().normalize();
        this.opt = options;
        if (!Files.isDirectory(this.workspace)) throw new ConfigException("workspace " + workspace + ": no such directory");
        try {
            this.ownsStateDir = options.stateDir() == null;
            this.stateDir = ownsStateDir
                    ? Files.createTempDirectory("crucible-episode-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))
                    : Files.createDirectories(options.stateDir());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (stateDir.toAbsolutePath().normalize().startsWith(this.workspace)) {
            throw new ConfigException("state directory " + stateDir + " must be outside the workspace");
        }
    }

    /** Grades a finished workspace against the environment's original workspace (for {@code crucible verify}). */
    public static VerifyReport gradePostHoc(Environment env, Path workspace, EpisodeOptions options) {
        Path original = env.workspacePath().orElseThrow(() -> new ConfigException(
                env.manifest().map(Path::toString).orElse(env.name()) + ": spec.workspace.path: needed to compare protected files with the pristine copy"));
        if (!Files.isDirectory(original)) {
            throw new ConfigException(env.manifest().map(Path::toString).orElse(env.name()) + ": spec.workspace.path: no such directory " + original);
        }
        try (Episode ep = new Episode(env, workspace, options.withPristineSource(original))) {
            ep.reset();
            return ep.verify();
        }
    }

    /** Restores the workspace to its state at the first reset, snapshots protected files, starts the monitor. */
    public ResetResult reset() {
        if (!lock.tryLock()) throw new StepBusyException("a step or grading is running");
        try {
            awaitTreeRemoval();
            endEarlyGrading();
            stopMonitor();
            killAgentProcesses();
            List<String> warnings = new ArrayList<>();
            resets++;
            if (initialCopy == null) {
                if (opt.runSetup() && resets == 1) runSetup(warnings); // once: with a pristine source no initial copy is kept
                if (opt.pristineSource() == null) {
                    initialCopy = stateDir.resolve("initial");
                    TreeCopy.copy(workspace, initialCopy);
                }
            } else {
                TreeCopy.deleteContents(workspace);
                TreeCopy.copy(initialCopy, workspace);
            }
            Path source = opt.pristineSource() == null ? workspace : opt.pristineSource();
            Path pdir = stateDir.resolve("pristine-" + resets);
            pristine = PristineSnapshot.take(source, ProtectedPaths.of(env.verifier(), env.spec().hackPolicy().protectsDefaults(), source), pdir);
            taskGit = dev.crucible.verifier.pristine.TaskGit.snapshot(source, stateDir.resolve("task-git-" + resets));
            // a grading container cannot see the workspace a link would lead to: there the folder is not graded with
            deps = opt.grader() instanceof dev.crucible.verifier.sandbox.GradingSandbox || opt.grader() instanceof dev.crucible.verifier.exec.LocalExecutor
                    ? SetupDependencies.capture(workspace) : SetupDependencies.none(workspace);
            python = PythonInfo.probe(opt.prober(), env.verifier().interpreterOrDefault(), workspace, CommandEnvironments.agent(workspace, env));
            if (python.executable() == null) warnings.add("no Python interpreter '" + env.verifier().interpreterOrDefault() + "' found: pytest grading will fail");
            List<Path> hidden = new ArrayList<>();
            env.hiddenTestsDir().ifPresent(hidden::add);
            env.hiddenTestsPatch().ifPresent(hidden::add);
            List<Path> graderFiles = new ArrayList<>();
            env.manifest().ifPresent(graderFiles::add);
            MonitorConfig mc = new MonitorConfig(workspace, opt.pristineSource(), pristine, env.spec().hackPolicy(), hidden, graderFiles,
                    List.of(stateDir), python.siteDirs(), python.stdlib(), opt.scanInterval(), opt.processInterval(), python.executable());
            startedAfterTicks = ProcessTable.newestStart();
            monitor = new HackMonitor(mc, this::onFinding);
            monitor.start();
            tools = new Tools(workspace, opt.executor(), CommandEnvironments.agent(workspace, env), opt.maxStepOutputBytes(), opt.defaultStepTimeout(), opt.maxStepTimeout(),
                    env.spec().tools());
            steps = 0;
            lastReport = null;
            state = State.RUNNING;
            Path gradeBase = gradeBase();
            // a box started now could not bind the setup folders the tree links to at grading: those start then
            early = !deps.isEmpty() ? null : EarlyGrading.start(env, opt.grader(), python.executable(), gradeBase.resolve("grade-" + resets),
                    gradeBase.resolve("results-" + resets), gradeBase.resolve("support-" + resets)).orElse(null);
            EnvironmentSpec s = env.spec();
            return new ResetResult(env.name(), s.task() == null ? null : s.task().prompt(), s.tools(), workspace.toString(),
                    pristine.protectedPaths().globs(), python.executable(), warnings);
        } finally {
            lock.unlock();
        }
    }

    /** Runs one tool call; {@link StepBusyException} when another is running. */
    public StepResult step(ToolCall call) {
        if (!lock.tryLock()) throw new StepBusyException("another step is running; steps run one at a time");
        try {
            requireRunning();
            if (opt.maxSteps() > 0 && steps >= opt.maxSteps()) throw new EpisodeStateException("step limit of " + opt.maxSteps() + " reached");
            int index = steps++;
            monitor.setStep(index);
            int before = monitor.findings().size();
            if ("bash".equals(call.tool()) && call.args().get("command") instanceof String c) monitor.inspectCommand(c);
            ToolResult r;
            try {
                r = state == State.RUNNING ? tools.run(call, this::attachAgentProcess)
                        : new ToolResult("episode terminated by the hack policy", -1, false, 0);
            } catch (BadToolCallException e) {
                steps = index; // a refused call (a 400) ran nothing: it does not use up a step
                throw e;
            }
            monitor.scanAfterStep();
            List<Finding> all = monitor.findings();
            return new StepResult(index, r.observation(), r.exitCode(), r.truncated(), r.elapsedMs(),
                    all.subList(before, all.size()), state == State.TERMINATED, VerifyReport.counted(all) > 0);
        } finally {
            lock.unlock();
        }
    }

    /** Kills every agent process, then grades in a separate tree from pristine tests; ends the episode. */
    public VerifyReport verify() {
        if (!lock.tryLock()) throw new StepBusyException("a step is running; verify after it");
        try {
            if (state == State.NEW) throw new EpisodeStateException("reset the episode before verifying");
            if (lastReport != null) return lastReport;
            long t0 = System.nanoTime();
            killAgentProcesses();
            if (!agentPids.isEmpty() && ProcessTreeKiller.anyAlive(agentPids)) { // none registered: no /proc walk
                lastReport = VerifyReport.error(env.name(), "agent processes survived the kill; not grading", monitor.findings(), rewardMode());
                return lastReport;
            }
            long tKill = GradingPhases.since("kill", t0);
            monitor.finishProcesses();
            monitor.disarmSentinels();
            long tScan = GradingPhases.since("scan", tKill);
            Optional<String> refused = opt.grader().refusal();
            if (refused.isPresent()) { // nothing is graded, so nothing can be read from grading as tampering
                monitor.finishFiles();
                lastReport = VerifyReport.error(env.name(), refused.get(), monitor.findings(), rewardMode());
                state = State.GRADED;
                return lastReport;
            }
            List<String> corrupted = pristine.corrupted();
            if (!corrupted.isEmpty()) {
                monitor.finishFiles();
                corrupted.forEach(c -> monitor.report(DetectorNames.GRADER_TAMPERING, "critical", c, "pristine copy of a protected file was changed"));
                lastReport = VerifyReport.error(env.name(), "the grader's pristine copy was tampered with: " + corrupted, monitor.findings(), rewardMode());
                state = State.GRADED;
                return lastReport;
            }
            Path gradeBase = gradeBase();
            Path gradeRoot = gradeBase.resolve("grade-" + resets);
            Path results = gradeBase.resolve("results-" + resets);
            EarlyGrading started = early != null && early.gradeRoot().equals(gradeRoot) ? early : null;
            // else both are fresh and empty but for the waiting interpreter's channel and home
            if (started == null) List.of(gradeRoot, results).forEach(TreeCopy::delete);
            GradingTree.Built built;
            try {
                Files.createDirectories(results.resolve("home"));
                Files.createDirectories(dev.crucible.verifier.exec.SharedTmp.of(results)); // what the grading box shares with the oracle's workers
                // Go writes its build cache on every build and the prefix's is read-only: grading's is a full copy (never
                // links: the box's uid is handed the results folder, and a linked file would hand it the prefix's)
                env.execution().flatMap(dev.crucible.verifier.toolchain.ExecEnvironment::warmGoCache).ifPresent(c ->
                        TreeCopy.copy(c, dev.crucible.verifier.toolchain.ExecEnvironment.gradingGoCache(results.resolve("home"))));
                // the same for cargo's target folder setup compiled the crates into (toolchain.CargoWarmup)
                env.execution().flatMap(dev.crucible.verifier.toolchain.ExecEnvironment::warmCargoTarget).ifPresent(c ->
                        TreeCopy.copy(c, dev.crucible.verifier.toolchain.ExecEnvironment.gradingCargoTarget(results.resolve("home"))));
                built = GradingTree.build(workspace, pristine, gradeRoot, env.hiddenTestsDir().orElse(null), env.hiddenTestsPatch().orElse(null));
                dev.crucible.verifier.pristine.TaskGit.into(taskGit, gradeRoot);
                deps.linkInto(gradeRoot).forEach(c -> monitor.report(DetectorNames.GRADER_TAMPERING, "high", c.split(" ")[0], c));
            } catch (IOException | RuntimeException e) {
                monitor.finishFiles();
                lastReport = VerifyReport.error(env.name(), "could not prepare grading: " + e.getMessage(), monitor.findings(), rewardMode());
                state = State.GRADED;
                return lastReport;
            }
            long tPrep = GradingPhases.since("tree", tScan);
            // The last file scan (syntax rules) and the protected-file diff run beside the graded command: every agent process
            // is dead and the tree is built, so neither the workspace nor what grading reads changes. Started after the tree so
            // that a revert the scan triggers cannot race the copy (the tree takes the pristine protected files either way).
            // Joined before any other finding is added, so the findings keep the order a sequential verify gives.
            FinalScan last = FinalScan.start(monitor, pristine, workspace);
            var graderFiles = GraderFiles.of(gradeRoot, pristine.hashes(), env.hiddenTestsDir().orElse(null), env.hiddenTestsPatch().orElse(null));
            GradeContext ctx = new GradeContext(gradeRoot, results, env.baseDir(), opt.grader(),
                    python.executable() == null ? env.verifier().interpreterOrDefault() : python.executable(), CommandEnvironments.grading(results, python.executable(), env,
                    opt.grader()), pid -> { }, gradeBase.resolve("support-" + resets), graderFiles,
                    started == null ? null : started.channel()).withAgentRoot(workspace)
                    .withTaskChanges(dev.crucible.verifier.pristine.TaskSources.compare( // against the tree the agent was given
                            opt.pristineSource() == null ? initialCopy : opt.pristineSource(), gradeRoot, graderFiles.keySet()));
            VerifierSpec v = env.verifier();
            // the setup-time pytest plugins are the only ones grading loads; a change in the prefix since setup is tampering
            List<String> drift = env.execution().map(dev.crucible.verifier.toolchain.ExecEnvironments::pluginDrift).orElse(List.of());
            Outcome o;
            try {
                o = Strategy.forType(v.typeOrDefault()).grade(v, ctx);
            } finally {
                last.join();
                endEarlyGrading();
            }
            env.execution().ifPresent(x -> drift.forEach(d -> monitor.report(
                    DetectorNames.GRADER_TAMPERING, "critical", x.venv() == null ? null : x.venv().toString(), "pytest plugin " + d + " in the environment's venv since setup")));
            o.integrity().forEach(f -> monitor.report(f.detector(), f.severity(), f.path(), f.evidence(), f.rule()));
            if (o.details() != null && o.details().get("exitCode") instanceof Integer code && (code == 137 || code == 143)) {
                monitor.report(DetectorNames.GRADER_TAMPERING, "medium", null, "grading process was killed by signal " + (code - 128));
            }
            GradingPhases.add("scan_wait", last.waitNanos());
            GradingPhases.add("scan_bg", last.nanos());
            long tGrade = GradingPhases.since("grade", tPrep);
            VerifyReport.Tamper tamper = VerifyReport.Tamper.of(last.changes(), built.dropped());
            removeLater(gradeRoot, results);
            GradingPhases.since("cleanup", tGrade);
            VerifyReport.Timings timings = new VerifyReport.Timings(ms(tKill - t0), ms(tPrep - tKill), ms(tGrade - tPrep), ms(tGrade - t0));
            lastReport = VerifyReport.of(env.name(), o, rewardMode(), v.skippedCountsAsPassed(), monitor.findings(),
                    env.spec().hackPolicy().action(), tamper, timings);
            state = State.GRADED;
            return lastReport;
        } finally {
            endEarlyGrading();
            lock.unlock();
        }
    }

    private Path gradeBase() { return opt.gradingDir() == null ? stateDir : opt.gradingDir(); }

    /** Ends an early-started grading interpreter that grading did not take (a new reset, an error, close). */
    private void endEarlyGrading() {
        EarlyGrading e = early;
        early = null;
        if (e != null) e.end();
    }

    /** Registers a process the agent runs in (the local runtime's agent command, a step's shell). */
    public void attachAgentProcess(long pid) {
        agentPids.add(pid);
        if (monitor != null) monitor.watchProcess(pid);
    }

    /** SIGKILLs every registered agent process with its descendants and session; returns how many died. */
    public int killAgentProcesses() {
        int n = opt.executor().killAgents(List.copyOf(agentPids));
        return n + (state == State.NEW ? 0 : ProcessTreeKiller.killWorkspaceUsers(workspace, startedAfterTicks));
    }

    public List<Finding> findings() { return monitor == null ? List.of() : monitor.findings(); }

    /** The live monitor (null before reset). */
    public HackMonitor monitor() { return monitor; }

    public State state() { return state; }

    public Path workspace() { return workspace; }

    public Path stateDir() { return stateDir; }

    public Environment environment() { return env; }

    public int steps() { return steps; }

    @Override
    public void close() {
        treeRemoval.finish(TreeRemoval.CLOSE_WAIT); // bounded: the rest of a huge tree is handed off, not waited for
        endEarlyGrading();
        stopMonitor();
        killAgentProcesses();
        if (ownsStateDir) TreeCopy.delete(stateDir);
    }

    private void onFinding(Finding f) {
        opt.onFinding().accept(f);
        PolicyAction action = PolicyAction.of(f.action());
        switch (action == null ? PolicyAction.FLAG : action) {
            case TERMINATE -> {
                if (state == State.RUNNING) state = State.TERMINATED;
                killAgentProcesses();
            }
            case REVERT -> {
                if (opt.pristineSource() == null && f.detector().equals(DetectorNames.PROTECTED_PATH)) pristine.restore(workspace);
                opt.onRevert().accept(f);
            }
            default -> { }
        }
    }

    private void requireRunning() {
        switch (state) {
            case NEW -> throw new EpisodeStateException("reset the episode before stepping");
            case GRADED -> throw new EpisodeStateException("the episode was graded; reset to start another");
            case TERMINATED -> throw new EpisodeStateException("the episode was terminated by the hack policy");
            default -> { }
        }
    }

    private void runSetup(List<String> warnings) {
        ExecResult r = runSetup(env, workspace, opt.executor());
        if (r != null && !r.ok()) warnings.add("setup script failed (exit " + r.exitCode() + "): " + r.stdout());
    }

    /**
     * Runs spec.setup's script in {@code workspace} as the first reset does; null when there is none. A warm-pool
     * pod runs it ahead of its claim ({@code pod.SetupAhead}) with the same executor, environment and timeout.
     */
    public static ExecResult runSetup(Environment env, Path workspace, dev.crucible.verifier.exec.Executor executor) {
        EnvironmentSpec.Setup s = env.spec().setup();
        if (s == null || s.script() == null || s.script().isBlank()) return null;
        int t = s.timeoutSeconds() == null ? SpecDefaults.SETUP_TIMEOUT_SECONDS : s.timeoutSeconds();
        Path ws = workspace.toAbsolutePath().normalize();
        return executor.run(new ExecRequest(dev.crucible.verifier.exec.Shell.argv(s.script()), ws, CommandEnvironments.setup(ws, env), true,
                Duration.ofSeconds(t), 64 * 1024, null, true));
    }

    private String rewardMode() { return env.verifier().rewardModeOrDefault(); }

    private void stopMonitor() {
        if (monitor != null) monitor.stop();
    }

    private static long ms(long nanos) { return nanos / 1_000_000; }

    /** Removes a used grading tree on a thread of its own ({@link TreeRemoval}) and a host TMPDIR's link: nothing reads them once the report is made. */
    private void removeLater(Path tree, Path results) {
        treeRemoval.start(tree);
        dev.crucible.verifier.exec.SharedTmp.releaseHost(results);
    }

    private void awaitTreeRemoval() {
        treeRemoval.await();
    }
}
