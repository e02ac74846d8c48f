package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.v1alpha1.rollout.EnvVar;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.contract.OutcomeFacts;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.Json;
import dev.crucible.verifier.ResetResult;
import dev.crucible.verifier.TreeCopy;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.api.ApiToken;
import dev.crucible.verifier.api.EnvironmentApi;
import dev.crucible.verifier.api.EpisodeHolder;
import dev.crucible.verifier.api.RolloutFindings;
import dev.crucible.verifier.api.SidecarMetrics;
import dev.crucible.verifier.exec.ProcessTreeKiller;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.sandbox.GradingSandbox;
import io.vertx.core.Vertx;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One attempt of one rollout on this machine, through the operator's phases: Pending → Initializing
 * (workspace, setup) → Running (the agent process, or the environment API for a trainer) →
 * Verifying (the verifier's {@link Episode#verify}) → a terminal phase. {@link #run} never throws:
 * whatever happens ends in a {@link RolloutResult} written to {@code result.json}.
 */
public final class LocalRollout {
    /** {@code port}: 0 for an ephemeral port (interactive mode); {@code heartbeat}: how often a Running line is printed. */
    /** {@code snapshots}: null for a plain run (bubblewrap); else the run is snapshot-able (see {@link SnapshotPolicy}). */
    public record Options(boolean sandbox, int port, Duration heartbeat, SnapshotPolicy snapshots) {
        public Options(boolean sandbox, int port, Duration heartbeat) { this(sandbox, port, heartbeat, null); }

        public static Options defaults() { return new Options(true, 0, Duration.ofSeconds(5)); }
    }

    /** Where the agent's PID 1 writes its exit status (snapshot-able runs), relative to the attempt folder. */
    static final String AGENT_EXIT = "agent.exit";

    private final RolloutDoc doc;
    private final int attempt;
    private final AttemptDir dir;
    private final Options opt;
    private final Progress progress;
    private final AttemptSnapshots snapshots;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile boolean cancelled;
    private volatile Episode episode;
    private volatile EpisodeHolder holder;
    private volatile long setupPid;

    // what happened, filled in as the attempt goes
    private long t0 = System.nanoTime();
    private String startedAt = Instant.now().toString();
    private String runningAt;
    private String verifyingAt;
    private Long setupMs;
    private Long agentMs;
    private Long verifyMs;
    private Path workspace;
    private Sandbox sandbox;
    private String sandboxName;
    private String endpoint;
    private RolloutResult.Setup setup;
    private RolloutResult.Agent agent;
    private String setupError;
    private boolean timedOut;
    private volatile String limitExceeded; // which resource limit ended the run (set by the sandbox's enforcement), or null
    private Integer agentExit;
    private VerifyReport report;
    private String restoredFrom;
    private dev.crucible.verifier.toolchain.ExecEnvironment execution; // setup's, the agent's and grading's one environment

    public LocalRollout(RolloutDoc doc, int attempt, AttemptDir dir, Options opt, Progress progress) {
        this.doc = doc;
        this.attempt = attempt;
        this.dir = dir;
        this.opt = opt;
        this.progress = progress;
        this.snapshots = new AttemptSnapshots(doc, attempt, dir, opt, progress);
    }

    /** Stops the attempt (Ctrl-C): the agent is killed at once and the result is written without grading. */
    public void cancel() {
        cancelled = true;
        long sp = setupPid;
        if (sp > 0) ProcessTreeKiller.killAll(List.of(sp));
        Episode e = episode != null ? episode : holder == null ? null : currentOrNull(holder);
        if (e != null) e.killAgentProcesses();
    }

    public boolean awaitDone(Duration d) throws InterruptedException { return done.await(d.toMillis(), TimeUnit.MILLISECONDS); }

    public RolloutResult run() {
        Path stateDir = null;
        t0 = System.nanoTime(); // queued attempts start their clock (and deadline) when they start
        startedAt = Instant.now().toString();
        progress.restart();
        try {
            progress.phase(Phase.Pending, "rollout " + doc.name() + " of environment " + doc.environment().name()
                    + (doc.interactive() ? " (interactive)" : " (embedded)"));
            Files.createDirectories(dir.root());
            stateDir = Files.createTempDirectory("crucible-state-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            initialize(stateDir);
            if (setupError == null && !cancelled && !timedOut) {
                if (doc.interactive()) serve(stateDir);
                else runAgent(stateDir);
            }
            return finish(null);
        } catch (Exception e) {
            return finish(e);
        } finally {
            if (episode != null) episode.close();
            if (holder != null) holder.close();
            if (sandbox != null) sandbox.close();
            if (stateDir != null) TreeCopy.delete(stateDir);
            done.countDown();
        }
    }

    private void initialize(Path stateDir) throws IOException, InterruptedException {
        RLEnvironmentSpec env = doc.environment().spec();
        progress.phase(Phase.Initializing, env.workspace != null && env.workspace.path != null
                ? "copying workspace " + doc.environment().baseDir().resolve(env.workspace.path).normalize()
                : "extracting " + env.source.repo + " at " + env.source.commit);
        workspace = WorkspacePreparer.prepare(doc.environment(), doc.spec(), dir);
        Files.writeString(dir.taskFile(), doc.prompt());
        execution = ExecutionPlanner.plan(doc.environment(), workspace);
        execution.describe().forEach(progress::info);
        try (java.io.Closeable lock = dev.crucible.verifier.toolchain.ExecEnvironments.lock(execution)) {
            prepare(env);
        }
    }

    /** The sandbox, the execution environment's prefix (venv, pinned toolchains) and setup, under the prefix's lock. */
    private void prepare(RLEnvironmentSpec env) throws IOException, InterruptedException {
        StringBuilder plog = new StringBuilder();
        try {
            int before = execution.warnings().size();
            execution = dev.crucible.verifier.toolchain.ExecEnvironments.provision(execution, plog);
            execution.warnings().subList(before, execution.warnings().size()).forEach(w -> progress.info("WARNING: " + w));
        } catch (IOException e) {
            setupError = "the execution environment could not be provisioned: " + e.getMessage();
        }
        Files.writeString(dir.setupLog(), plog);
        Sandbox sandbox = opt.snapshots() != null && !doc.interactive()
                ? new Namespaces(dir.root().resolve("home"), dir.root().resolve(AGENT_EXIT))
                : SandboxChooser.choose(opt.sandbox(), doc.environment(), doc.spec().limits, workspace, dir, dir.root().resolve("home"),
                        doc.spec().agent == null ? null : doc.spec().agent.command, doc.deadlineSeconds(), "agent-" + attempt, execution.readOnly());
        if (sandbox instanceof Unconfined u) Files.createDirectories(u.homeDir());
        if (sandbox instanceof Namespaces n) Files.createDirectories(Path.of(n.home()));
        sandboxName = sandbox.name();
        this.sandbox = sandbox;
        progress.info(sandbox.describe());
        progress.info(!opt.sandbox() ? "WARNING: grading runs unconfined (--no-sandbox): graded code can reach everything this user can"
                : dev.crucible.verifier.sandbox.Box.availability().ok()
                ? "grading: each graded command in a fresh box (grading tree read-only to Python runners, writable but for the grader's files to others; results writable; nothing else of the host)"
                : "grading will be refused: no box can be made here (" + dev.crucible.verifier.sandbox.Box.availability().problem()
                        + "); pass --no-sandbox to grade unconfined");
        List<String> clusterOnly = ClusterOnlySettings.of(env);
        if (!clusterOnly.isEmpty()) progress.info("cluster-only, not applied here: " + String.join("; ", clusterOnly));
        if (setupError == null && env.setup != null && env.setup.script != null && !env.setup.script.isBlank()) {
            progress.phase(Phase.Initializing, "running setup script");
            SetupRunner.Outcome s = SetupRunner.run(env.setup, workspace, execution.forSetup(), remaining(), dir.setupLog(), pid -> setupPid = pid);
            setupPid = 0;
            setupMs = s.elapsedMs();
            setup = new RolloutResult.Setup(s.exitCode(), s.timedOut(), s.elapsedMs(), dir.setupLog().toString());
            if (s.timedOut() && remaining().compareTo(Duration.ofMillis(500)) < 0) {
                timedOut = true; // the rollout's deadline, not the setup's own timeout, cut it short
                progress.info("deadline of " + doc.deadlineSeconds() + " s reached during setup: the agent never ran");
            } else if (!s.ok()) {
                setupError = "the setup script " + (s.timedOut() ? "ran past its timeout" : "exited with status " + s.exitCode())
                        + "; see " + dir.setupLog();
            }
        }
        if (setupError == null && !timedOut) {
            int before = execution.warnings().size();
            StringBuilder alog = new StringBuilder();
            execution = dev.crucible.verifier.toolchain.ExecEnvironments.afterSetup(execution, workspace, alog);
            Files.writeString(dir.setupLog(), alog, java.nio.file.StandardOpenOption.APPEND);
            execution.warnings().subList(before, execution.warnings().size()).forEach(w -> progress.info("WARNING: " + w));
            if (!execution.pytestPlugins().isEmpty()) progress.info("pytest plugins installed at setup (the only ones loaded): " + execution.pytestPlugins());
        }
    }

    /** The environment with this attempt's own copy of the hidden tests, in its 0700 state folder (shared with no other attempt). */
    private dev.crucible.verifier.Environment graderEnv(Path stateDir) throws IOException {
        dev.crucible.verifier.Environment e = doc.environment().verifierEnv().withPrivateHiddenTests(stateDir.resolve("hidden"));
        return execution == null ? e : e.withExecution(execution);
    }

    private EpisodeOptions episodeOptions(Path stateDir) {
        RolloutSpec r = doc.spec();
        int maxTurns = r.limits == null || r.limits.maxTurns == null ? 0 : r.limits.maxTurns;
        EpisodeOptions o = EpisodeOptions.defaults().withStateDir(stateDir).withRunSetup(false)
                .withListeners(progress::finding, f -> { })
                .withStepLimits(64 * 1024, Duration.ofSeconds(60), Duration.ofSeconds(600), maxTurns);
        if (opt.sandbox()) {
            long gradeWall = doc.environment().verifierEnv().verifier().timeoutOrDefault();
            o = o.withGradingExecutor(new GradingSandbox(SandboxChooser.limits(doc.environment(), gradeWall), new dev.crucible.verifier.exec.LocalExecutor(),
                    execution == null ? List.of() : execution.readOnly()));
        }
        return doc.interactive() ? o.withExecutor(new SandboxedExecutor(sandbox, workspace)) : o;
    }

    /** Embedded mode: the agent command runs in the workspace under the sandbox, watched by the live monitor. */
    private void runAgent(Path stateDir) throws IOException, InterruptedException {
        episode = new Episode(graderEnv(stateDir), workspace, episodeOptions(stateDir));
        ResetResult rr = episode.reset();
        rr.warnings().forEach(w -> progress.info("warning: " + w));
        List<String> command = doc.spec().agent.command;
        List<String> argv = new ArrayList<>();
        if (!sandbox.startsOwnSession() && Files.isExecutable(Path.of("/usr/bin/setsid"))) argv.add("/usr/bin/setsid"); // own session: the kill sweep finds it all
        Map<String, String> agentEnv = agentEnv();
        sandbox.prepare(); // what setup made goes to the sandbox's user
        argv.addAll(sandbox.wrap(command, workspace, agentEnv));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(workspace.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.agentLog().toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(agentEnv);
        runningAt = Instant.now().toString();
        long ta = System.nanoTime();
        progress.phase(Phase.Running, "agent: " + String.join(" ", command) + " (output in " + dir.agentLog() + ")");
        Process p = pb.start();
        episode.attachAgentProcess(p.pid());
        try {
            if (sandbox instanceof Namespaces) snapshots.publish(AgentProcesses.treeRoot(p), command, dir.root(), facts());
            watchAgent(p.toHandle(), () -> AgentProcesses.exitCodeOf(p), ta, command);
        } finally {
            snapshots.unpublish();
        }
    }

    /**
     * Continues a rollout restored from snapshot {@code snapshotId} into this attempt's folder: the
     * restored agent (root {@code pid}, no child of ours) is watched by a new live monitor with the
     * rollout's remaining deadline, then graded and written to result.json exactly as {@link #run} does.
     */
    public RolloutResult resume(RunningRollout meta, String snapshotId, long pid) {
        Path stateDir = null;
        Path pristine = null;
        restoredFrom = snapshotId;
        t0 = System.nanoTime() - meta.elapsedMs() * 1_000_000L; // the deadline counts from the original start
        startedAt = meta.startedAt();
        try {
            stateDir = Files.createTempDirectory("crucible-state-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            workspace = dir.root().resolve(meta.workspace()).normalize();
            sandbox = new Namespaces(dir.root().resolve("home"), Path.of(meta.attemptRoot()).resolve(meta.exitFile()));
            sandboxName = sandbox.name();
            progress.info(sandbox.describe());
            // the pristine tests come from a fresh copy of the environment, never from the restored (agent-written) workspace
            pristine = Files.createTempDirectory("crucible-pristine-");
            Path fresh = WorkspacePreparer.prepare(doc.environment(), doc.spec(), new AttemptDir(pristine));
            episode = new Episode(graderEnv(stateDir), workspace, episodeOptions(stateDir).withPristineSource(fresh));
            episode.reset().warnings().forEach(w -> progress.info("warning: " + w));
            episode.attachAgentProcess(pid);
            runningAt = Instant.now().toString();
            progress.phase(Phase.Running, "agent restored from snapshot " + snapshotId + " as pid " + pid + " (output in " + dir.agentLog()
                    + "; it sees this folder at " + meta.attemptRoot() + ")");
            ProcessHandle h = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("the restored agent (pid " + pid + ") already exited"));
            try {
                snapshots.publish(pid, meta.agentCommand(), Path.of(meta.attemptRoot()), facts());
                Path exitFile = dir.root().resolve(meta.exitFile());
                watchAgent(h, () -> AgentProcesses.readExit(exitFile), System.nanoTime(), meta.agentCommand());
            } finally {
                snapshots.unpublish();
            }
            return finish(null);
        } catch (Exception e) {
            return finish(e);
        } finally {
            if (episode != null) episode.close();
            if (stateDir != null) TreeCopy.delete(stateDir);
            if (pristine != null) TreeCopy.delete(pristine);
            done.countDown();
        }
    }

    /** Waits for the agent (deadline, policy, Ctrl-C, periodic snapshots, heartbeats), then grades. */
    private void watchAgent(ProcessHandle p, java.util.function.IntSupplier exitCode, long ta, List<String> command) throws InterruptedException {
        long nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
        SnapshotPolicy policy = opt.snapshots();
        long nextSnapshot = policy == null || policy.every() == null ? Long.MAX_VALUE : System.nanoTime() + policy.every().toNanos();
        int findingsSeen = 0;
        while (AgentProcesses.alive(p)) {
            Thread.sleep(100);
            if (cancelled) break;
            if (remaining().isNegative()) {
                timedOut = true;
                progress.info("deadline of " + doc.deadlineSeconds() + " s reached: stopping the agent");
                break;
            }
            if (episode.state() == Episode.State.TERMINATED) break;
            int findings = episode.findings().size();
            if (snapshots.live() && findings > findingsSeen && AgentProcesses.alive(p)) {
                // the state right after a hack, to inspect or to branch from an earlier snapshot with a patch
                snapshots.snapshotNow("finding " + episode.findings().get(findings - 1).detector());
            }
            findingsSeen = findings;
            if (snapshots.live() && System.nanoTime() >= nextSnapshot && AgentProcesses.alive(p)) {
                snapshots.snapshotNow("periodic");
                nextSnapshot = System.nanoTime() + policy.every().toNanos();
            }
            if (System.nanoTime() > nextBeat) {
                progress.heartbeat("agent running (" + (1 + p.descendants().count()) + " processes)", episode.findings().size(),
                        remaining(), Text.lastLine(dir.agentLog()));
                nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
            }
        }
        // the policy kills the agent itself, so its end may be seen as an exit (137) rather than in the loop
        boolean terminated = episode.state() == Episode.State.TERMINATED;
        if (terminated) progress.info("the hack policy terminated the episode: the agent is stopped");
        boolean exited = !AgentProcesses.alive(p) && !terminated;
        if (!exited) {
            episode.killAgentProcesses();
            try {
                p.onExit().get(5, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                progress.info("the agent did not end within 5 s of SIGKILL");
            }
        }
        agentMs = (System.nanoTime() - ta) / 1_000_000;
        if (exited) agentExit = exitCode.getAsInt();
        limitExceeded = sandbox.limitExceeded(agentExit == null ? 0 : agentExit).orElse(null);
        if (limitExceeded != null) progress.info("the agent was stopped: " + limitExceeded);
        agent = new RolloutResult.Agent(command, agentExit, dir.agentLog().toString());
        if (exited) progress.info("agent exited with status " + agentExit + " after " + agentMs / 1000.0 + " s");
        if (!cancelled) grade(() -> episode.verify());
    }

    /** Interactive mode: the environment API on a local port until the trainer verifies or the deadline passes. */
    private void serve(Path stateDir) throws Exception {
        holder = new EpisodeHolder(graderEnv(stateDir), workspace, episodeOptions(stateDir));
        Vertx vertx = Vertx.vertx();
        try {
            // A new token per attempt: 127.0.0.1 is reachable by every local user, so the API needs one.
            ApiToken token = ApiToken.generate();
            Path tokenFile = token.writeTo(dir.apiToken());
            EnvironmentApi api = new EnvironmentApi(vertx, holder, new SidecarMetrics(holder::monitorCpuSeconds), EnvironmentApi.DEFAULT_MAX_BODY, token);
            int port = opt.port() == 0 ? 0 : opt.port() + attempt;
            api.listen("127.0.0.1", port).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            endpoint = "http://127.0.0.1:" + api.port();
            progress.info("environment API token: " + token.value() + " (send Authorization: Bearer <token>; also in " + tokenFile + ", mode 0600)");
            runningAt = Instant.now().toString();
            long ta = System.nanoTime();
            progress.phase(Phase.Running, "environment API on " + endpoint + " (POST /v1/reset, /v1/step, /v1/verify; GET /v1/findings);"
                    + " waiting for /v1/verify or the deadline in " + doc.deadlineSeconds() + " s");
            long nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
            while (!"GRADED".equals(holder.state()) && !cancelled) {
                if (remaining().isNegative()) {
                    timedOut = true;
                    progress.info("deadline of " + doc.deadlineSeconds() + " s reached: closing the environment API");
                    break;
                }
                limitExceeded = sandbox.limitExceeded(0).orElse(null);
                if (limitExceeded != null) {
                    progress.info("the sandbox stopped the steps: " + limitExceeded + "; closing the environment API");
                    break;
                }
                Thread.sleep(100);
                if (System.nanoTime() > nextBeat) {
                    Episode e = currentOrNull(holder);
                    int steps = e == null ? 0 : e.steps();
                    progress.heartbeat(e == null ? "waiting for /v1/reset" : steps + " step" + (steps == 1 ? "" : "s"),
                            holder.findings().size(), remaining(), null);
                    nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
                }
            }
            api.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            agentMs = (System.nanoTime() - ta) / 1_000_000;
            Episode e = currentOrNull(holder);
            // the trainer's own report when it verified, else grade what is there; with every earlier episode's findings
            if (e != null && !cancelled) grade(() -> RolloutFindings.withAll(e.verify(), holder.findings()));
        } finally {
            vertx.close();
        }
    }

    private void grade(java.util.function.Supplier<VerifyReport> verify) {
        verifyingAt = Instant.now().toString();
        progress.phase(Phase.Verifying, "grading in a separate tree with the pristine tests");
        long tv = System.nanoTime();
        for (int tries = 0; ; tries++) {
            try {
                report = verify.get();
                break;
            } catch (dev.crucible.verifier.StepBusyException busy) {
                // a trainer's step still runs at the deadline: its processes were killed, so it ends shortly
                if (tries >= 50) throw busy;
                Episode e = episode != null ? episode : currentOrNull(holder);
                if (e != null) e.killAgentProcesses();
                AgentProcesses.sleep(200);
            }
        }
        verifyMs = (System.nanoTime() - tv) / 1_000_000;
    }

    private RolloutResult finish(Exception error) {
        List<Finding> findings = report != null ? report.hackFindings()
                : episode != null ? episode.findings() : holder != null ? holder.findings() : List.of();
        Phase.Decision d = error != null
                ? new Phase.Decision(Phase.Failed, "LocalRunError", error.getClass().getSimpleName() + ": " + error.getMessage())
                : Phase.terminal(OutcomeFacts.none().withInterrupted(cancelled).withSetupError(setupError)
                        .withFindings(VerifyReport.counted(findings), doc.environment().verifierEnv().spec().hackPolicy().action())
                        .withTimedOut(timedOut, doc.deadlineSeconds()).withLimitExceeded(limitExceeded != null, limitExceeded)
                        .withGrade(report == null ? null : report.verdict(), report == null ? null : report.reason()).withAgentExit(agentExit));
        Episode e = episode != null ? episode : holder == null ? null : currentOrNull(holder);
        RolloutResult r = new RolloutResult(doc.name(), doc.environment().name(), doc.interactive() ? "interactive" : "embedded",
                doc.spec().group == null ? null : doc.spec().group.id, attempt, d.phase(), d.reason(), d.message(),
                report == null ? null : report.reward(), report == null ? null : report.testReward(), report == null ? null : report.verdict(), report == null ? null : report.flagged(),
                report == null ? null : report.tests(), findings, e == null ? null : e.steps(), sandboxName, endpoint, agent, setup,
                new RolloutResult.Timings(startedAt, runningAt, verifyingAt, Instant.now().toString(), setupMs, agentMs, verifyMs,
                        (System.nanoTime() - t0) / 1_000_000),
                workspace == null ? null : workspace.toString(), report, restoredFrom, snapshots.refs(),
                execution == null ? null : execution.summary());
        try {
            Files.createDirectories(dir.root());
            Files.writeString(dir.result(), Json.write(r, true) + "\n");
        } catch (IOException io) {
            progress.info("could not write " + dir.result() + ": " + io.getMessage());
        }
        progress.phase(d.phase(), d.message() + (r.reward() == null ? "" : "; reward " + r.reward() + ", verdict " + r.verdict())
                + " → " + dir.result());
        return r;
    }

    private AttemptSnapshots.Attempt facts() {
        return new AttemptSnapshots.Attempt(t0, workspace, sandboxName, doc.deadlineSeconds(), startedAt, restoredFrom);
    }

    private Map<String, String> agentEnv() {
        return AgentEnvironment.forAttempt(doc, attempt, dir, workspace, execution, sandbox.home());
    }

    /** Time left before the deadline, counted from the start of the attempt (as the operator counts from creation). */
    private Duration remaining() {
        return Duration.ofSeconds(doc.deadlineSeconds()).minusNanos(System.nanoTime() - t0);
    }

    private static Episode currentOrNull(EpisodeHolder h) {
        try {
            return h.current();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
