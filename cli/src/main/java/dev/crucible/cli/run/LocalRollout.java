package dev.crucible.cli.run;

import dev.crucible.contract.TerminalOutcome;
import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.ResetResult;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.api.EpisodeHolder;
import dev.crucible.verifier.api.RolloutFindings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One attempt of one rollout on this machine, through the operator's phases: Pending → Initializing
 * (workspace, setup) → Running (the agent process, or the environment API for a trainer) →
 * Verifying (the verifier's {@link Episode#verify}) → a terminal phase. {@link #run} never throws:
 * whatever happens ends in a {@link RolloutResult} written to {@code result.json}.
 */
public final class LocalRollout {
    /** Where the agent's PID 1 writes its exit status (snapshot-able runs), relative to the attempt folder. */
    static final String AGENT_EXIT = "agent.exit";

    private final RolloutDoc doc;
    private final int attempt;
    private final AttemptDir dir;
    private final AttemptOptions opt;
    private final Progress progress;
    private final AttemptSnapshots snapshots;
    private volatile RolloutResult result; // written by finish, handed out once the attempt's files are cleaned up
    private volatile boolean cancelled;
    private volatile PhaseName stoppedIn; // the phase Ctrl-C or a signal came in, for result.json's message (else the one it ended in)
    private volatile Episode episode;
    private volatile EpisodeHolder holder;
    private volatile LocalEnvironmentApi api; // interactive: listens from before setup until the attempt ends
    private volatile boolean verified; // interactive: the trainer's /v1/verify graded (then the API answers a while longer)
    private volatile AgentProcesses.Recorded setupPid = AgentProcesses.Recorded.NONE, agentPid = AgentProcesses.Recorded.NONE; // killed only while ours
    private AgentLog agentLog; // the embedded agent's output pump (agent.log, capped); null for a restored agent, which writes its own
    private volatile AttemptTrajectory trajectory; // trajectory/ beside result.json (issue 36)
    private volatile Path stateDir;
    private volatile long verifyingSince; // System.nanoTime() when grading started, 0 before
    /** Set once, by whichever writes result.json first: the attempt's thread, or the watchdog or Ctrl-C abandoning it. */
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicBoolean scratchClosed = new AtomicBoolean();
    private volatile boolean abandoned; // then abandon, not the (stuck) thread, hands out the result once it cleaned up
    private final CompletableFuture<RolloutResult> outcome = new CompletableFuture<>();
    /** The monitor's findings as they were reported, readable without the monitor's lock (which a stuck read may hold). */
    private final List<dev.crucible.verifier.monitor.Finding> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final AttemptRecord rec = new AttemptRecord(); // what happened, filled in as the attempt goes
    private long t0 = System.nanoTime();
    private byte[] reserve; // let go on an OutOfMemoryError, so that result.json can still be written (host round 8, case 32)
    private Path workspace;
    private volatile Sandbox sandbox;
    private volatile AttemptScratch scratch; // the attempt's disk: its limit, and the volume its folders lie on (as root)
    private dev.crucible.verifier.toolchain.ExecEnvironment execution; // setup's, the agent's and grading's one environment

    public LocalRollout(RolloutDoc doc, int attempt, AttemptDir dir, AttemptOptions opt, Progress progress) {
        this.doc = doc;
        this.attempt = attempt;
        this.dir = dir;
        this.opt = opt;
        this.progress = progress;
        this.snapshots = new AttemptSnapshots(doc, attempt, dir, opt, progress);
    }

    /** Stops the attempt (Ctrl-C): the agent is killed at once and the result is written without grading. */
    public void cancel() {
        if (!cancelled) stoppedIn = progress.current();
        cancelled = true;
        AgentProcesses.kill(setupPid);
        Episode e = episode != null ? episode : holder == null ? null : holder.currentOrNull();
        if (e != null) e.killAgentProcesses();
    }

    /** The attempt's result once written and its state folder, sandbox and volume gone: by its own thread, or by {@link #abandon}. */
    public CompletableFuture<RolloutResult> outcome() { return outcome; }

    public RolloutResult run() {
        t0 = System.nanoTime(); // queued attempts start their clock (and deadline) when they start
        reserve = new byte[2 << 20];
        rec.startedAt = Instant.now().toString();
        progress.restart();
        watch();
        try {
            progress.phase(PhaseName.Pending, "rollout " + doc.name() + " of environment " + doc.environment().name()
                    + (doc.interactive() ? " (interactive)" : " (embedded)"));
            Files.createDirectories(dir.root());
            trajectory = AttemptTrajectory.open(dir, doc.name(), attempt, !doc.interactive(), snapshots);
            if ((rec.refusal = Unconfined.refusal(opt.sandbox())) != null) return finish(null); // nothing runs, not even setup
            scratch = AttemptScratch.open(dir, doc.environment().spec().resources, opt.snapshots() == null || doc.interactive());
            Path stateDir = this.stateDir = scratch.stateDir();
            if (doc.interactive()) rec.endpoint = (api = LocalEnvironmentApi.open(dir, opt.port() == 0 ? 0 : opt.port() + attempt, opt.printToken(), progress)).endpoint();
            initialize(stateDir);
            if (rec.setupError == null && !cancelled && !rec.timedOut) {
                if (doc.interactive()) serve(stateDir);
                else runAgent(stateDir);
            }
            return finish(null);
        } catch (Exception e) {
            return finish(e);
        } catch (StackOverflowError | OutOfMemoryError e) { // still a result.json (rt34 deep-dirs; host round 8, case 32)
            reserve = null; // what filled the heap is garbage once unwound; this makes room for the result
            return finish(AttemptRecord.hostLimit(e));
        } finally {
            if (result == null && !abandoned) result = rec.lastResort(doc, attempt, (System.nanoTime() - t0) / 1_000_000, workspace, dir, reserve == null);
            if (episode != null) episode.close();
            if (holder != null) holder.close();
            if (sandbox != null) sandbox.close();
            closeScratch(); // the state folder, and the volume with it
            if (api != null) api.end(verified, () -> cancelled || remaining().isNegative()); // result.json is written: findings stay readable
            if (!abandoned) outcome.complete(result);
        }
    }

    private void closeScratch() {
        if (scratch == null || !scratchClosed.compareAndSet(false, true)) return;
        scratch.closeBounded(); // a step past its bound (an unmount) goes on in the background, named
        scratch.leftBehind().forEach(l -> progress.info("cleanup: " + l));
    }

    public boolean ended() { return ended.get(); }
    boolean stoppedWhileGrading() { return cancelled && stoppedIn == PhaseName.Verifying; } // cancelled in grading: its grade is dropped

    /** Watched from now on by the watchdog: the deadline counts from {@code t0}; grading gets the verifier's timeout. */
    private void watch() {
        AttemptWatchdog.watch(new AttemptWatchdog.Watched(ended::get, t0 + java.util.concurrent.TimeUnit.SECONDS.toNanos(doc.deadlineSeconds()), () -> verifyingSince,
                Duration.ofSeconds(doc.environment().verifierEnv().verifier().timeoutOrDefault()), why -> {
                    if (!cancelled) rec.timedOut = true;
                    progress.info(why);
                    AgentProcesses.kill(agentPid, setupPid);
                }, why -> abandon(false, why)));
    }

    /**
     * Ends the attempt while its thread is stuck ({@link AttemptWatchdog}; Ctrl-C not obeyed in time): kills the agent, closes its sandbox,
     * writes result.json from what was seen (no grade), removes the state folder; takes no lock the stuck thread may hold. Once only.
     */
    public void abandon(boolean interrupted, String why) {
        if (!ended.compareAndSet(false, true)) return; // the attempt's thread wrote its result meanwhile
        abandoned = true;
        if (interrupted) cancelled = true;
        else { rec.timedOut = true; rec.abandonedWhy = why; }
        progress.info(why);
        AgentProcesses.kill(agentPid, setupPid);
        Sandbox s = sandbox;
        if (s != null) s.close();
        snapshots.unpublish();
        finish(null, List.copyOf(seen), null, true);
        if (scratch != null) closeScratch();
        else AttemptScratch.remove(progress, stateDir); // a restored branch's state folder
        outcome.complete(result);
    }

    private void initialize(Path stateDir) throws IOException, InterruptedException {
        RLEnvironmentSpec env = doc.environment().spec();
        progress.phase(PhaseName.Initializing, env.workspace != null && env.workspace.path != null
                ? "copying workspace " + doc.environment().baseDir().resolve(env.workspace.path).normalize()
                : "extracting " + env.source.repo + " at " + env.source.commit);
        workspace = WorkspacePreparer.prepare(doc.environment(), doc.spec(), dir);
        dev.crucible.files.OutputFolder.replace(dir.taskFile(), doc.prompt());
        execution = ExecutionPlanner.plan(doc.environment(), workspace);
        execution.describe().forEach(progress::info);
        // one attempt at a time provisions and sets up a prefix that attempts of the same environment share
        try (java.io.Closeable lock = dev.crucible.verifier.toolchain.ExecEnvironments.lock(execution)) {
            if (dev.crucible.verifier.toolchain.ExecEnvironments.discardUnfinished(execution) > 0) progress.info("the environment's prefix was half-made (an earlier setup did not finish): set up again from scratch");
            AttemptSetup setup = new AttemptSetup(doc, dir, progress, rec);
            execution = setup.provision(execution);
            sandbox = SandboxChooser.forAttempt(doc, opt, attempt, dir, workspace, execution, progress, scratch);
            rec.sandboxName = sandbox.name();
            List<String> clusterOnly = ClusterOnlySettings.of(env);
            if (!clusterOnly.isEmpty()) progress.info("cluster-only, not applied here: " + String.join("; ", clusterOnly));
            execution = setup.run(execution, workspace, this::remaining, pid -> setupPid = AgentProcesses.Recorded.now(pid));
            setupPid = AgentProcesses.Recorded.NONE;
        }
    }

    /** Embedded mode: the agent command runs in the workspace under the sandbox, watched by the live monitor. */
    private void runAgent(Path stateDir) throws IOException, InterruptedException {
        episode = new Episode(AttemptEpisodes.graderEnv(doc, execution, stateDir), workspace, episodeOptions(stateDir));
        ResetResult rr = episode.reset();
        rr.warnings().forEach(w -> progress.info("warning: " + w));
        trajectory.observe(episode, doc.spec().agent.command);
        if (trajectory.eventsUnavailable() != null) progress.info("processes sampled from /proc: " + trajectory.eventsUnavailable());
        List<String> command = doc.spec().agent.command;
        Map<String, String> agentEnv = AgentEnvironment.forAttempt(doc, attempt, dir, workspace, execution, sandbox.home());
        rec.runningAt = Instant.now().toString();
        if (episode.monitor() != null) episode.monitor().inspectAgentCommand(command, workspace); // a script of milliseconds escapes any sampler
        if (ended.get() || remaining().isNegative()) { // setup and the first scan took the deadline (at load 60 the agent once started past it)
            rec.timedOut = true;
            progress.info("deadline of " + doc.deadlineSeconds() + " s reached before the agent started: the agent never ran");
            return;
        }
        long ta = System.nanoTime();
        progress.phase(PhaseName.Running, "agent: " + String.join(" ", command) + " (output in " + dir.agentLog() + ")");
        AgentProcesses.Started started = AgentProcesses.start(sandbox, command, workspace, agentEnv, dir.agentLog(), trajectory::tee);
        Process p = started.process();
        trajectory.agentStarted(p.pid());
        agentLog = started.log();
        agentPid = AgentProcesses.Recorded.now(p.pid());
        episode.attachAgentProcess(p.pid());
        try {
            if (sandbox instanceof Namespaces) snapshots.publish(AgentProcesses.treeRoot(p), command, dir.root(), facts());
            watchAgent(p.toHandle(), () -> AgentProcesses.exitCodeOf(p), ta, command);
        } finally {
            snapshots.unpublish();
        }
    }

    /** Continues a rollout restored from snapshot {@code snapshotId}: its agent (root {@code pid}, no child of ours) is watched by a new
     * live monitor with the remaining deadline, then graded and written to result.json exactly as {@link #run} does. */
    public RolloutResult resume(RunningRollout meta, String snapshotId, long pid) {
        Path stateDir = null, pristine = null;
        rec.restoredFrom = snapshotId;
        t0 = System.nanoTime() - meta.elapsedMs() * 1_000_000L; // the deadline counts from the original start
        rec.startedAt = meta.startedAt();
        agentPid = AgentProcesses.Recorded.now(pid);
        watch();
        try {
            stateDir = Files.createTempDirectory(StaleStateFolders.prefix(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            workspace = dir.root().resolve(meta.workspace()).normalize();
            sandbox = new Namespaces(dir.root().resolve("home"), Path.of(meta.attemptRoot()).resolve(meta.exitFile()));
            rec.sandboxName = sandbox.name();
            progress.info(sandbox.describe());
            // the pristine tests come from a fresh copy of the environment, never from the restored (agent-written) workspace
            this.stateDir = stateDir;
            pristine = Files.createTempDirectory("crucible-pristine-");
            Path fresh = WorkspacePreparer.prepare(doc.environment(), doc.spec(), new AttemptDir(pristine));
            episode = new Episode(AttemptEpisodes.graderEnv(doc, execution, stateDir), workspace, episodeOptions(stateDir).withPristineSource(fresh));
            episode.reset().warnings().forEach(w -> progress.info("warning: " + w));
            (trajectory = AttemptTrajectory.open(dir, doc.name(), attempt, true, snapshots)).restored(snapshotId, episode);
            episode.attachAgentProcess(pid);
            rec.runningAt = Instant.now().toString();
            progress.phase(PhaseName.Running, "agent restored from snapshot " + snapshotId + " as pid " + pid + " (output in " + dir.agentLog()
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
            AttemptScratch.remove(progress, stateDir, pristine); // bounded in time, as an attempt's scratch is
            if (!abandoned) outcome.complete(result);
        }
    }

    /** Waits for the agent (deadline, policy, Ctrl-C, periodic snapshots, heartbeats), then grades. */
    private void watchAgent(ProcessHandle p, java.util.function.IntSupplier exitCode, long ta, List<String> command) throws InterruptedException {
        long nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
        while (AgentProcesses.alive(p)) {
            Thread.sleep(100);
            if (cancelled) break;
            if (remaining().isNegative()) {
                rec.timedOut = true;
                progress.info("deadline of " + doc.deadlineSeconds() + " s reached: stopping the agent");
                break;
            }
            if (episode.state() == Episode.State.TERMINATED) break;
            snapshots.onTick(episode.findings(), p);
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
        if (!exited) AgentProcesses.stop(episode, p, progress);
        rec.agentMs = (System.nanoTime() - ta) / 1_000_000;
        if (exited) rec.agentExit = exitCode.getAsInt();
        trajectory.agentExited(p.pid(), rec.agentExit);
        rec.limitExceeded = sandbox.limitExceeded(rec.agentExit == null ? 0 : rec.agentExit).orElse(null);
        if (rec.limitExceeded != null) progress.info("the agent was stopped: " + rec.limitExceeded);
        if (agentLog != null) agentLog.finish(java.time.Duration.ofSeconds(5)); // the tail is written before anyone reads the log
        rec.agent = new RolloutResult.Agent(command, rec.agentExit, dir.agentLog().toString());
        if (exited) progress.info("agent exited with status " + rec.agentExit + " after " + rec.agentMs / 1000.0 + " s");
        if (exited && (rec.limitLikely = sandbox.limitLikely(rec.agentExit, Text.tail(dir.agentLog(), 64 << 10))) != null) progress.info(rec.limitLikely);
        if (!cancelled) grade(() -> episode.verify());
    }

    /** Interactive mode: the environment API (listening since before setup) serves the episode until the trainer verifies or the deadline passes. */
    private void serve(Path stateDir) throws Exception {
        holder = new EpisodeHolder(AttemptEpisodes.graderEnv(doc, execution, stateDir), workspace, episodeOptions(stateDir));
        api.ready(holder);
        trajectory.observe(holder, api.api());
        rec.runningAt = Instant.now().toString();
        long ta = System.nanoTime();
        progress.phase(PhaseName.Running, "environment API on " + rec.endpoint + " (POST /v1/reset, /v1/step, /v1/verify; GET /v1/findings);"
                + " waiting for /v1/verify or the deadline in " + doc.deadlineSeconds() + " s");
        long nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
        while (!"GRADED".equals(holder.state()) && !cancelled) {
            if (remaining().isNegative()) {
                rec.timedOut = true;
                progress.info("deadline of " + doc.deadlineSeconds() + " s reached: closing the environment API");
                break;
            }
            rec.limitExceeded = sandbox.limitExceeded(0).orElse(null);
            if (rec.limitExceeded != null) {
                progress.info("the sandbox stopped the steps: " + rec.limitExceeded + "; closing the environment API");
                break;
            }
            Thread.sleep(100);
            if (System.nanoTime() > nextBeat) {
                Episode e = holder.currentOrNull();
                int steps = e == null ? 0 : e.steps();
                progress.heartbeat(e == null ? "waiting for /v1/reset" : steps + " step" + (steps == 1 ? "" : "s"),
                        holder.findings().size(), remaining(), null);
                nextBeat = System.nanoTime() + opt.heartbeat().toNanos();
            }
        }
        if (cancelled && "GRADED".equals(holder.state()) && !ended.get()) cancelled = false; // SIGTERM right after /v1/verify (LocalRun.stop): its report stands
        verified = "GRADED".equals(holder.state()) && !cancelled;
        if (verified) api.verified();
        else api.close(); // no step may run while what is there is graded
        rec.agentMs = (System.nanoTime() - ta) / 1_000_000;
        Episode e = holder.currentOrNull();
        // the trainer's own report when it verified, else grade what is there; with every earlier episode's findings
        if (e != null && !cancelled) grade(() -> RolloutFindings.withAll(e.verify(), holder.findings()));
    }

    private void grade(java.util.function.Supplier<VerifyReport> verify) {
        if (ended.get()) return; // abandoned by the watchdog or Ctrl-C: its result stands, and its state folder is gone
        rec.verifyingAt = Instant.now().toString();
        progress.phase(PhaseName.Verifying, "grading in a separate tree with the pristine tests");
        long tv = System.nanoTime();
        verifyingSince = tv;
        try {
            rec.report = AgentProcesses.gradeWhenFree(verify, () -> {
                Episode e = episode != null ? episode : holder.currentOrNull();
                if (e != null) e.killAgentProcesses();
            });
        } catch (java.io.UncheckedIOException e) { // the grading copies share the attempt's volume: once the agent filled it,
            if (scratch == null || !scratch.noteFull(rec, e.getMessage(), progress)) throw e; // the run ends on that limit, not as a crash
        }
        if (scratch != null && rec.report != null && !dev.crucible.contract.Verdict.graded(rec.report.verdict())) scratch.noteFull(rec, rec.report.reason(), progress);
        rec.verifyMs = (System.nanoTime() - tv) / 1_000_000;
    }

    /** Decides the phase from what was observed (a crash of this code is LocalRunError) and writes result.json. */
    private RolloutResult finish(Exception error) {
        if (ended.get()) return outcome.join(); // abandoned meanwhile: its result stands
        Episode e = episode != null ? episode : holder == null ? null : holder.currentOrNull();
        return finish(error, episode != null ? episode.findings() : holder != null ? holder.findings() : List.of(), e == null ? null : e.steps(), false);
    }

    /** Writes result.json once: the first to claim {@code ended} (the attempt's thread, or {@link #abandon}) wins; later ones get its result. */
    private RolloutResult finish(Exception error, List<dev.crucible.verifier.monitor.Finding> live, Integer steps, boolean claimed) {
        if (!claimed && !ended.compareAndSet(false, true)) return outcome.join();
        AttemptOutcome outcome = rec.outcome(cancelled, live);
        TerminalOutcome d = error != null
                ? new TerminalOutcome(PhaseName.Failed, "LocalRunError", error.getClass().getSimpleName() + ": " + error.getMessage())
                : outcome.decide(doc.environment().verifierEnv().spec().hackPolicy().action(), doc.deadlineSeconds());
        d = rec.explain(d, stoppedIn != null ? stoppedIn : progress.current());
        RolloutResult r = rec.result(doc, attempt, d, outcome.findings(), steps, (System.nanoTime() - t0) / 1_000_000,
                workspace, snapshots.refs(), execution == null ? null : execution.summary());
        if (trajectory != null) r = trajectory.finish(r, doc);
        String failed = dir.writeResult(r);
        if (failed != null) progress.info("could not write " + dir.result() + ": " + failed);
        progress.phase(d.phase(), d.message() + (r.reward() == null ? "" : "; reward " + r.reward() + ", verdict " + r.verdict())
                + (failed == null ? " → " + dir.result() : "; result.json NOT written"));
        return result = r;
    }

    private AttemptSnapshots.Attempt facts() {
        return new AttemptSnapshots.Attempt(t0, workspace, rec.sandboxName, doc.deadlineSeconds(), rec.startedAt, rec.restoredFrom);
    }

    private EpisodeOptions episodeOptions(Path stateDir) {
        return AttemptEpisodes.options(doc, opt, progress, execution, sandbox, workspace, stateDir).withListeners(f -> {
            if (!ended.get()) { // not a stuck thread's monitor after the result was written and its state folder removed
                seen.add(f);
                progress.finding(f);
            }
        }, f -> { });
    }

    /** Time left before the deadline, counted from the start of the attempt (as the operator counts from creation). */
    private Duration remaining() {
        return Duration.ofSeconds(doc.deadlineSeconds()).minusNanos(System.nanoTime() - t0);
    }
}
