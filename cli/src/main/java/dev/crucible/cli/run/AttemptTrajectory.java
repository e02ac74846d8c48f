package dev.crucible.cli.run;

import dev.crucible.trajectory.AtifExport;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.HandedInTrajectory;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.trace.RolloutTrace;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
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
    private final RolloutTrace trace;
    private final String session;
    private final Path runFolder;

    private AttemptTrajectory(RolloutTrace trace, String session, Path runFolder) {
        this.trace = trace;
        this.session = session;
        this.runFolder = runFolder;
    }

    /** {@code embedded}: the agent's root process is this attempt's child, so its end (and exit status) comes from {@link #agentExited}. */
    static AttemptTrajectory open(AttemptDir dir, String rollout, int attempt, boolean embedded, AttemptSnapshots snapshots) {
        AttemptTrajectory t = new AttemptTrajectory(new RolloutTrace(TrajectoryRecorder.open(dir.root().resolve(DIR), RecorderLimits.defaults()),
                embedded), rollout + "-" + attempt, dir.root());
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
        holder.observe(trace);
        api.observe(trace);
    }

    /** From now on the episode's live monitor reports into the trajectory (call after reset, before the agent starts). */
    void observe(Episode e) {
        if (e != null && e.monitor() != null) e.monitor().observe(trace);
    }

    /** The same, with the agent command the root process runs. */
    void observe(Episode e, List<String> agentCommand) {
        trace.agentCommand(agentCommand);
        observe(e);
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

    /**
     * The agent framework's own trajectory, when it left one as {@code agent-trajectory.json} in the attempt's folder (where a
     * trainer outside the box can write; the agent inside cannot): merged as agent.step events, or refused whole with the
     * field that is wrong, recorded as a problem (the trajectory is then incomplete; the rollout's result stands).
     */
    private void mergeHandedIn() {
        Path f = runFolder.resolve(HandedInTrajectory.FILE);
        if (!Files.exists(f, LinkOption.NOFOLLOW_LINKS)) return;
        try {
            HandedInTrajectory.merge(f, trace.recorder());
        } catch (HandedInTrajectory.Refused e) {
            trace.recorder().append(EventKind.PROBLEM, null, null, Map.of("message", "handed-in trajectory refused: " + e.getMessage()));
            trace.recorder().problem("handed-in trajectory refused: " + e.getMessage());
        }
    }

    void agentExited(long pid, Integer exitCode) {
        trace.rootExited(pid, exitCode);
    }

    /** Grading and the outcome, then the summary; {@code r} with the recorder's status (complete or not, and why). */
    RolloutResult finish(RolloutResult r, RunInputs.RolloutDoc doc) {
        String gradeCommand = doc.environment().verifierEnv().verifier().command();
        List<String> agentCommand = doc.spec().agent == null ? null : doc.spec().agent.command;
        mergeHandedIn();
        try {
            VerifyReport report = r.verifierReport();
            if (report != null) trace.grading(gradeCommand, report);
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("phase", String.valueOf(r.phase()));
            o.put("reason", r.reason());
            o.put("message", r.message());
            if (r.reward() != null) o.put("reward", r.reward());
            if (r.testReward() != null) o.put("testReward", r.testReward());
            if (r.verdict() != null) o.put("verdict", r.verdict());
            o.put("findings", r.hackFindings() == null ? 0 : r.hackFindings().size());
            trace.outcome(o);
        } catch (RuntimeException e) {
            trace.recorder().problem("outcome not recorded: " + e);
        }
        TrajectoryRecorder rec = trace.recorder();
        rec.close();
        Path dir = rec.dir();
        try {
            List<String> problems = AtifExport.write(dir, session, new AtifExport.AgentInfo(agentCommand == null || agentCommand.isEmpty()
                    ? "trainer (interactive)" : String.join(" ", agentCommand), "unknown", Map.of("mode", r.mode(), "rollout", r.rollout())));
            problems.forEach(p -> rec.problem("reading back for ATIF: " + p));
        } catch (IOException | RuntimeException e) {
            rec.problem("trajectory.atif.json not written: " + e.getMessage());
        }
        return r.withTrajectory(rec.status());
    }
}
