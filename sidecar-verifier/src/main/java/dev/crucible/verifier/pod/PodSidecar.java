package dev.crucible.verifier.pod;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.api.ApiToken;
import dev.crucible.verifier.api.EnvironmentApi;
import dev.crucible.verifier.api.EpisodeHolder;
import dev.crucible.verifier.api.RolloutFindings;
import dev.crucible.verifier.api.SidecarMetrics;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.exec.container.AgentContainerExecutor;
import dev.crucible.verifier.exec.container.GradingContainerExecutor;
import dev.crucible.verifier.exec.container.OracleContainerHost;
import dev.crucible.verifier.monitor.HackMonitor;
import dev.crucible.verifier.exec.shim.ShimExecutor;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * The sidecar inside a rollout pod. It serves the environment API and, when the episode ends — the
 * embedded agent container exits (its wrapper writes {@code RUN_DIR/agent.exit}), the trainer calls
 * /v1/verify (interactive), or the deadline passes — grades, writes the result to its termination
 * message for the operator, and exits 0 so the pod completes. With a grading container
 * ({@code CRUCIBLE_GRADING_SOCKET}) every graded command runs there; without one (an older operator's
 * pod) grading runs in this container, as it did before. In an interactive pod with an agent-exec
 * container ({@code CRUCIBLE_AGENT_EXEC_SOCKET}) the agent's commands run there, not here.
 */
public final class PodSidecar {
    /**
     * How long the grading container has to connect (it starts beside the sidecar, from an image the
     * init container already pulled). The reset's interpreter probe waits for it, so a container that
     * never comes (no python3 in the image) delays the monitor by this much and then fails grading.
     */
    static final long CONNECT_WAIT_SECONDS = 60;

    /** How often the trajectory goes to the trace store: a pod that dies loses at most this much of it. */
    static final Duration SHIP_EVERY = Duration.ofSeconds(2);

    private final PodSettings settings;
    private final PodTrace trace;
    private final Duration poll;

    /** A pod that records its trajectory in a temporary folder and sends it nowhere. */
    public PodSidecar(PodSettings settings, Duration poll) {
        this(settings, PodTrace.fromEnvironment(java.util.Map.of(), settings.warm()), poll);
    }

    public PodSidecar(PodSettings settings, PodTrace trace, Duration poll) {
        this.settings = settings;
        this.trace = trace;
        this.poll = poll;
    }

    /** Runs the episode to its end and returns the result JSON it wrote. */
    public String run() throws Exception {
        PodSettings settings = this.settings;
        Environment env = Environment.load(settings.environmentFile());
        EpisodeOptions options = EpisodeOptions.defaults();
        if (settings.pristine() != null && Files.isDirectory(settings.pristine())) {
            options = options.withPristineSource(settings.pristine());
        }
        if (settings.execSocket() != null) {
            options = options.withExecutor(new ShimExecutor(settings.execSocket()));
        }
        GradingContainerExecutor grading = null;
        if (settings.gradingSocket() != null) {
            // Graded code runs in the grading container (the environment's image), not here beside the
            // token, the findings and the result file; the interpreter is probed there for the same reason.
            grading = GradingContainerExecutor.listen(settings.gradingSocket(), Duration.ofSeconds(CONNECT_WAIT_SECONDS));
            Files.createDirectories(settings.gradingDir());
            if (settings.oracleSocket() != null) {
                // the isolated oracle's workers run the code under test in a container of their own (issue 33)
                // the tree copies are on the grading volume, beside the trees: a copy is a hard link per file
                grading.withOracle(OracleContainerHost.listen(settings.oracleSocket(), settings.oracleDir(), settings.gradingDir(),
                        settings.gradingDir().resolveSibling(dev.crucible.contract.OracleContainer.TREES_SUBPATH), Duration.ofSeconds(CONNECT_WAIT_SECONDS)));
            }
            options = options.withGradingDir(settings.gradingDir()).withGradingExecutor(grading).withProbeExecutor(grading);
        }
        AgentContainerExecutor agentExec = null;
        if (settings.interactive() && settings.agentExecSocket() != null) {
            // The trainer's bash steps run in the agent-exec container (the agent's uid, its image, read-only
            // root but the workspace and a scratch folder), out of reach of the token, run folder and findings.
            agentExec = AgentContainerExecutor.listen(settings.agentExecSocket(), Duration.ofSeconds(CONNECT_WAIT_SECONDS));
            options = options.withExecutor(agentExec);
            if (grading == null) { // an older operator's pod: grading and the probe stay here, never in the agent's container
                options = options.withGradingExecutor(new LocalExecutor()).withProbeExecutor(new LocalExecutor());
            }
        }
        if (settings.interactive()) {
            // spec.setup.script runs where the trainer's steps run (the agent-exec container), at the first reset, before
            // its initial copy and monitor baseline, as the local runtime runs it; a pool pod runs it ahead of its claim
            // (SetupAhead). Not in an embedded pod: its only executor would be this container, beside the token.
            options = options.withRunSetup(true);
        }
        PodTrace trace = this.trace;
        // A pool pod makes its Vert.x instance (threads, classes) before the claim, not in the claim's path.
        Vertx vertx = settings.warm() ? Vertx.vertx() : null;
        Instant claimedAt = null;
        if (settings.warm()) {
            // A pool pod: its containers are up and connected; the attempt comes with the claim. The API listens
            // only after it, so no episode (and no monitor baseline) can start in a pod no Rollout has claimed.
            // Setup depends on the environment alone: it runs now, before demand (SetupAhead).
            try {
                ClaimPathWarmUp.run(vertx, env, settings.workspace(), options);
                options = SetupAhead.run(env, settings.workspace(), options,
                        settings.runDir().resolve(dev.crucible.contract.RunFolder.SETUP_DONE));
                WarmClaim claim = WarmClaim.await(settings.claimFile(), poll);
                settings = claim.applyTo(settings);
                trace = trace.claimedBy(claim.namespace(), claim.rollout());
                claimedAt = claim.claimedAt();
                System.err.println("crucible-sidecar: claimed by rollout " + claim.namespace() + "/" + claim.rollout()
                        + ", claim seen " + Duration.between(claimedAt, Instant.now()).toMillis() + " ms after it was made");
            } catch (Exception e) {
                vertx.close();
                throw e;
            }
        }
        options = options.withStepLimits(EpisodeOptions.defaults().maxStepOutputBytes(), Duration.ofSeconds(60),
                Duration.ofSeconds(600), settings.maxTurns());
        Instant deadline = settings.deadline(Instant.now());
        if (vertx == null) {
            vertx = Vertx.vertx();
        }
        try (GradingContainerExecutor closeGrading = grading; AgentContainerExecutor closeAgent = agentExec;
             EpisodeHolder holder = new EpisodeHolder(env, settings.workspace(), options)) {
            if (agentExec != null) agentExec.onProcesses(procs -> monitorOf(holder).ifPresent(m -> m.observeProcesses(procs)));
            // All interfaces, so a trainer reaches it by pod IP; the agent container shares the pod's
            // network too, which is why the token (a Secret mounted only into this container) is required.
            EnvironmentApi api = new EnvironmentApi(vertx, holder, new SidecarMetrics(holder::monitorCpuSeconds),
                    EnvironmentApi.DEFAULT_MAX_BODY, ApiToken.read(settings.apiTokenFile()));
            PodTrajectory trajectory = PodTrajectory.start(trace, holder, api, SHIP_EVERY);
            api.listen("0.0.0.0", settings.port()).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            if (claimedAt != null) {
                System.err.println("crucible-sidecar: environment API listening " + Duration.between(claimedAt, Instant.now()).toMillis()
                        + " ms after the claim was made");
            }
            if (!settings.interactive()) {
                holder.reset(); // the monitor watches the workspace while the agent container works
                Files.writeString(settings.episodeStartedFile(), Instant.now() + "\n"); // the agent's wrapper starts it now
            }
            boolean timedOut = !awaitEnd(settings, holder, deadline);
            VerifyReport report = null;
            String message = null;
            try {
                if (!"NEW".equals(holder.state())) {
                    report = holder.current().verify(); // returns the trainer's report when it already verified
                } else {
                    message = "the episode never started: no /v1/reset before the deadline";
                }
            } catch (RuntimeException e) {
                message = "grading failed: " + e.getMessage();
            }
            report = RolloutFindings.withAll(report, holder.findings()); // a reset never takes a finding back
            int turns = "NEW".equals(holder.state()) ? 0 : holder.current().steps();
            // without a report (grading failed) the monitor's findings still count, as they do locally
            Integer agentExit = agentExit(settings);
            var kept = trajectory.finish(env.verifier().command(), report,
                    PodResult.outcome(report, holder.findings(), timedOut, settings.maxDurationSeconds(), agentExit, message), turns,
                    report != null && report.hackFindings() != null ? report.hackFindings().size() : holder.findings().size());
            String json = PodResult.terminationMessage(report, holder.findings(), timedOut, settings.maxDurationSeconds(), agentExit,
                    message, turns, settings.resultMaxBytes(), kept);
            Files.writeString(settings.resultFile(), json);
            api.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS); // the trainer's verify answer goes out first
            return json;
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static java.util.Optional<HackMonitor> monitorOf(EpisodeHolder holder) {
        return "NEW".equals(holder.state()) ? java.util.Optional.empty() : java.util.Optional.ofNullable(holder.current().monitor());
    }

    /** The agent container's exit status from its marker file (embedded mode), or null. */
    private static Integer agentExit(PodSettings settings) {
        if (settings.interactive()) return null;
        try {
            return Integer.valueOf(Files.readString(settings.agentExitFile()).strip());
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    /** True when the episode ended before the deadline. */
    private boolean awaitEnd(PodSettings settings, EpisodeHolder holder, Instant deadline) throws InterruptedException, IOException {
        while (Instant.now().isBefore(deadline)) {
            if (settings.interactive() ? "GRADED".equals(holder.state()) : Files.exists(settings.agentExitFile())) {
                return true;
            }
            Thread.sleep(poll.toMillis());
        }
        return false;
    }
}
