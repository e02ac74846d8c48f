package dev.crucible.cli.run;

import dev.crucible.trajectory.AtifExport;
import dev.crucible.trajectory.HandedInTrajectory;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.trace.EpisodeTrajectory;
import dev.crucible.verifier.trace.ProcessEvents;
import dev.crucible.verifier.trace.RolloutTrace;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The trajectory of one local attempt, in {@code trajectory/} of the attempt's folder: next to result.json, outside
 * the workspace and the sandbox (the agent's box binds only the workspace and its home), so the agent can neither
 * write nor delete it. The live monitor reports processes, file changes and findings into it; the agent's output
 * passes through {@link #tee}; {@link #finish} adds grading and the outcome, closes it and writes
 * {@code trajectory.atif.json}. Nothing here throws at the attempt: a trajectory problem makes it incomplete, no more.
 */
final class AttemptTrajectory {
    static final String DIR = "trajectory";
    private final EpisodeTrajectory episode;
    private final RolloutTrace trace;
    private final Path runFolder;
    /** The kernel's process events for the embedded agent (null: not available here; then /proc is sampled). */
    private ProcessEvents events;
    private String eventsUnavailable;

    private AttemptTrajectory(EpisodeTrajectory episode, Path runFolder) {
        this.episode = episode;
        this.trace = episode.trace();
        this.runFolder = runFolder;
    }

    /** {@code embedded}: the agent's root process is this attempt's child, so its end (and exit status) comes from {@link #agentExited}. */
    static AttemptTrajectory open(AttemptDir dir, String rollout, int attempt, boolean embedded, AttemptSnapshots snapshots) {
        AttemptTrajectory t = new AttemptTrajectory(EpisodeTrajectory.open(dir.root().resolve(DIR), rollout + "-" + attempt, embedded), dir.root());
        if (snapshots != null) snapshots.onSnapshot = t.trace::snapshot;
        return t;
    }

    /** A branch restored from {@code snapshotId}: recorded as its first event (the lineage), then the episode observed. */
    void restored(String snapshotId, Episode e) {
        trace.snapshot(Map.of("op", "restored", "id", snapshotId));
        observe(e);
    }

    /** Interactive mode: every API call, and from each reset on what that episode's monitor sees. */
    void observe(dev.crucible.verifier.api.EpisodeHolder holder, dev.crucible.verifier.api.EnvironmentApi api) {
        episode.observe(holder, api);
    }

    /** From now on the episode's live monitor reports into the trajectory (call after reset, before the agent starts). */
    void observe(Episode e) {
        if (e != null && e.monitor() != null) e.monitor().observe(trace);
    }

    /**
     * The same, with the agent command the root process runs; and, before the agent starts, the host starts listening to
     * the kernel's process events, so every process of the agent is recorded with its parent ({@link ProcessEvents}).
     */
    void observe(Episode e, List<String> agentCommand) {
        trace.agentCommand(agentCommand);
        String[] why = {"turned off (CRUCIBLE_PROCESS_EVENTS=off)"};
        ProcessEvents.Sink sink = trace.processEvents();
        events = "off".equals(System.getenv("CRUCIBLE_PROCESS_EVENTS")) ? null : ProcessEvents.start(sink, why);
        if (events != null) trace.eventSource(events);
        else {
            trace.noProcessEvents();
            eventsUnavailable = why[0];
        }
        observe(e);
    }

    /** Why processes are sampled from /proc rather than taken from the kernel's events (null when they are not). */
    String eventsUnavailable() { return eventsUnavailable; }

    /** The agent's root process (this JVM's child) started: it and everything below it are the agent's. */
    void agentStarted(long pid) {
        trace.watchRoot(pid, Instant.now());
    }

    /** The agent's output, passed on unchanged, each read also an {@code output} event. */
    InputStream tee(InputStream in) {
        return new FilterInputStream(in) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n > 0) trace.output(b, off, n, Instant.now());
                return n;
            }
        };
    }

    void agentExited(long pid, Integer exitCode) {
        trace.rootExited(pid, exitCode);
    }

    private void closeEvents() {
        if (events == null) return;
        trace.eventsClosing();
        events.close();
        events = null;
    }

    /**
     * Grading and the outcome, then the summary; {@code r} with the recorder's status (complete or not, and why). The
     * agent framework's own trajectory is merged first when it left {@code agent-trajectory.json} in the attempt's
     * folder (where a trainer outside the box can write; the agent inside cannot).
     */
    RolloutResult finish(RolloutResult r, RunInputs.RolloutDoc doc) {
        closeEvents();
        String gradeCommand = doc.environment().verifierEnv().verifier().command();
        List<String> agentCommand = doc.spec().agent == null ? null : doc.spec().agent.command;
        episode.mergeHandedIn(runFolder.resolve(HandedInTrajectory.FILE));
        Map<String, Object> o = EpisodeTrajectory.outcome(String.valueOf(r.phase()), r.reason(), r.message(), r.reward(), r.testReward(),
                r.verdict(), r.findingCount());
        AtifExport.AgentInfo agent = new AtifExport.AgentInfo(agentCommand == null || agentCommand.isEmpty()
                ? "trainer (interactive)" : String.join(" ", agentCommand), "unknown", Map.of("mode", r.mode(), "rollout", r.rollout()));
        return r.withTrajectory(episode.finish(gradeCommand, r.verifierReport(), o, agent));
    }
}
