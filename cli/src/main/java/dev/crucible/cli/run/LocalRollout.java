package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.v1alpha1.rollout.EnvVar;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.Json;
import dev.crucible.verifier.ResetResult;
import dev.crucible.verifier.TreeCopy;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.api.EnvironmentApi;
import dev.crucible.verifier.api.EpisodeHolder;
import dev.crucible.verifier.api.SidecarMetrics;
import dev.crucible.verifier.exec.ProcessTreeKiller;
import dev.crucible.verifier.monitor.Finding;
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
    public record Options(boolean sandbox, int port, Duration heartbeat) {
        public static Options defaults() { return new Options(true, 0, Duration.ofSeconds(5)); }
    }

    private final RolloutDoc doc;
    private final int attempt;
    private final AttemptDir dir;
    private final Options opt;
    private final Progress progress;
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
    private Integer agentExit;
    private VerifyReport report;

    public LocalRollout(RolloutDoc doc, int attempt, AttemptDir dir, Options opt, Progress progress) {
        this.doc = doc;
        this.attempt = attempt;
        this.dir = dir;
        this.opt = opt;
        this.progress = progress;
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
        Files.writeString(dir.taskFile(), prompt());
        Sandbox sandbox = SandboxChooser.choose(opt.sandbox(), doc.environment(), workspace, dir, stateDir, dir.root().resolve("home"),
                doc.spec().agent == null ? null : doc.spec().agent.command);
        if (sandbox instanceof Unconfined u) Files.createDirectories(u.homeDir());
        sandboxName = sandbox.name();
        this.sandbox = sandbox;
        progress.info(sandbox.describe());
        List<String> clusterOnly = ClusterOnlySettings.of(env);
        if (!clusterOnly.isEmpty()) progress.info("cluster-only, not applied here: " + String.join("; ", clusterOnly));
        if (env.setup != null && env.setup.script != null && !env.setup.script.isBlank()) {
            progress.phase(Phase.Initializing, "running setup script");
            SetupRunner.Outcome s = SetupRunner.run(env.setup, workspace,
                    AgentEnvironment.base(System.getProperty("user.home"), env.setup.env), remaining(), dir.setupLog(), pid -> setupPid = pid);
            setupPid = 0;
            setupMs = s.elapsedMs();
            setup = new RolloutResult.Setup(s.exitCode(), s.timedOut(), s.elapsedMs(), dir.setupLog().toString());
            if (s.timedOut() && remaining().compareTo(Duration.ofMillis(500)) < 0) {
                timedOut = true; // the rollout's deadline, not the setup's own timeout, cut it short
                progress.info("deadline of " + deadlineSeconds() + " s reached during setup: the agent never ran");
            } else if (!s.ok()) {
                setupError = "the setup script " + (s.timedOut() ? "ran past its timeout" : "exited with status " + s.exitCode())
                        + "; see " + dir.setupLog();
            }
        }
    }

    private EpisodeOptions episodeOptions(Path stateDir) {
        RolloutSpec r = doc.spec();
        int maxTurns = r.limits == null || r.limits.maxTurns == null ? 0 : r.limits.maxTurns;
        EpisodeOptions o = EpisodeOptions.defaults().withStateDir(stateDir).withRunSetup(false)
                .withListeners(progress::finding, f -> { })
                .withStepLimits(64 * 1024, Duration.ofSeconds(60), Duration.ofSeconds(600), maxTurns);
        return doc.interactive() ? o.withExecutor(new SandboxedExecutor(sandbox, workspace)) : o;
    }

    /** Embedded mode: the agent command runs in the workspace under the sandbox, watched by the live monitor. */
    private void runAgent(Path stateDir) throws IOException, InterruptedException {
        episode = new Episode(doc.environment().verifierEnv(), workspace, episodeOptions(stateDir));
        ResetResult rr = episode.reset();
        rr.warnings().forEach(w -> progress.info("warning: " + w));
        List<String> command = doc.spec().agent.command;
        List<String> argv = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) argv.add("/usr/bin/setsid"); // own session: the kill sweep finds it all
        argv.addAll(sandbox.wrap(command, workspace));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(workspace.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.agentLog().toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(agentEnv());
        runningAt = Instant.now().toString();
        long ta = System.nanoTime();
        progress.phase(Phase.Running, "agent: " + String.join(" ", command) + " (output in " + dir.agentLog() + ")");
        Process p = pb.start();
        episode.attachAgentProcess(p.pid());
        long nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
        while (!p.waitFor(100, TimeUnit.MILLISECONDS)) {
            if (cancelled) break;
            if (remaining().isNegative()) {
                timedOut = true;
                progress.info("deadline of " + deadlineSeconds() + " s reached: stopping the agent");
                break;
            }
            if (episode.state() == Episode.State.TERMINATED) break;
            if (System.nanoTime() > nextBeat) {
                progress.heartbeat("agent running (" + (1 + p.descendants().count()) + " processes)", episode.findings().size(),
                        remaining(), Text.lastLine(dir.agentLog()));
                nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
            }
        }
        // the policy kills the agent itself, so its end may be seen as an exit (137) rather than in the loop
        boolean terminated = episode.state() == Episode.State.TERMINATED;
        if (terminated) progress.info("the hack policy terminated the episode: the agent is stopped");
        boolean exited = !p.isAlive() && !terminated;
        if (!exited) {
            episode.killAgentProcesses();
            p.waitFor(5, TimeUnit.SECONDS);
        }
        agentMs = (System.nanoTime() - ta) / 1_000_000;
        if (exited) agentExit = p.exitValue();
        agent = new RolloutResult.Agent(command, agentExit, dir.agentLog().toString());
        if (exited) progress.info("agent exited with status " + agentExit + " after " + agentMs / 1000.0 + " s");
        if (!cancelled) grade(() -> episode.verify());
    }

    /** Interactive mode: the environment API on a local port until the trainer verifies or the deadline passes. */
    private void serve(Path stateDir) throws Exception {
        holder = new EpisodeHolder(doc.environment().verifierEnv(), workspace, episodeOptions(stateDir));
        Vertx vertx = Vertx.vertx();
        try {
            EnvironmentApi api = new EnvironmentApi(vertx, holder, new SidecarMetrics(holder::monitorCpuSeconds), EnvironmentApi.DEFAULT_MAX_BODY);
            int port = opt.port() == 0 ? 0 : opt.port() + attempt;
            api.listen("127.0.0.1", port).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            endpoint = "http://127.0.0.1:" + api.port();
            runningAt = Instant.now().toString();
            long ta = System.nanoTime();
            progress.phase(Phase.Running, "environment API on " + endpoint + " (POST /v1/reset, /v1/step, /v1/verify; GET /v1/findings);"
                    + " waiting for /v1/verify or the deadline in " + deadlineSeconds() + " s");
            long nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
            while (!"GRADED".equals(holder.state()) && !cancelled) {
                if (remaining().isNegative()) {
                    timedOut = true;
                    progress.info("deadline of " + deadlineSeconds() + " s reached: closing the environment API");
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
            if (e != null && !cancelled) grade(e::verify); // the trainer's own report when it verified; else grade what is there
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
                sleep(200);
            }
        }
        verifyMs = (System.nanoTime() - tv) / 1_000_000;
    }

    private RolloutResult finish(Exception error) {
        List<Finding> findings = report != null ? report.hackFindings()
                : episode != null ? episode.findings() : holder != null ? holder.findings() : List.of();
        int flagged = (int) findings.stream().filter(f -> !"revert".equals(f.action())).count();
        Phase.Decision d = error != null
                ? new Phase.Decision(Phase.Failed, "LocalRunError", error.getClass().getSimpleName() + ": " + error.getMessage())
                : Phase.terminal(new Phase.Facts(cancelled, setupError, flagged, doc.environment().verifierEnv().spec().hackPolicy().action(),
                        timedOut, deadlineSeconds(), report == null ? null : report.verdict(), report == null ? null : report.reason(), agentExit));
        Episode e = episode != null ? episode : holder == null ? null : currentOrNull(holder);
        RolloutResult r = new RolloutResult(doc.name(), doc.environment().name(), doc.interactive() ? "interactive" : "embedded",
                doc.spec().group == null ? null : doc.spec().group.id, attempt, d.phase(), d.reason(), d.message(),
                report == null ? null : report.reward(), report == null ? null : report.verdict(), report == null ? null : report.flagged(),
                report == null ? null : report.tests(), findings, e == null ? null : e.steps(), sandboxName, endpoint, agent, setup,
                new RolloutResult.Timings(startedAt, runningAt, verifyingAt, Instant.now().toString(), setupMs, agentMs, verifyMs,
                        (System.nanoTime() - t0) / 1_000_000),
                workspace == null ? null : workspace.toString(), report);
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

    private Map<String, String> agentEnv() {
        RLEnvironmentSpec env = doc.environment().spec();
        Map<String, String> m = AgentEnvironment.base(sandbox.home(), env.setup == null ? null : env.setup.env);
        RolloutSpec r = doc.spec();
        if (r.agent != null && r.agent.env != null) for (EnvVar v : r.agent.env) m.put(v.name, v.value == null ? "" : v.value);
        m.put("CRUCIBLE_TASK", prompt());
        m.put("CRUCIBLE_TASK_FILE", dir.taskFile().toString());
        m.put("CRUCIBLE_WORKSPACE", workspace.toString());
        m.put("CRUCIBLE_ROLLOUT", doc.name());
        m.put("CRUCIBLE_ATTEMPT", Integer.toString(attempt));
        m.put("CRUCIBLE_MODE", "embedded");
        m.put("CRUCIBLE_MAX_DURATION_SECONDS", Long.toString(deadlineSeconds()));
        if (r.limits != null && r.limits.maxTurns != null) m.put("CRUCIBLE_MAX_TURNS", r.limits.maxTurns.toString());
        return m;
    }

    private String prompt() {
        RLEnvironmentSpec env = doc.environment().spec();
        return env.task == null || env.task.prompt == null ? "" : env.task.prompt;
    }

    private long deadlineSeconds() {
        RolloutSpec r = doc.spec();
        return r.limits == null || r.limits.maxDurationSeconds == null ? 3600 : r.limits.maxDurationSeconds;
    }

    /** Time left before the deadline, counted from the start of the attempt (as the operator counts from creation). */
    private Duration remaining() {
        return Duration.ofSeconds(deadlineSeconds()).minusNanos(System.nanoTime() - t0);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Episode currentOrNull(EpisodeHolder h) {
        try {
            return h.current();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
