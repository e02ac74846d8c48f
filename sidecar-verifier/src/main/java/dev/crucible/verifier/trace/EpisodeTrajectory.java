package dev.crucible.verifier.trace;

import dev.crucible.trajectory.AtifExport;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.HandedInTrajectory;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import dev.crucible.trajectory.TrajectoryStatus;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.api.EnvironmentApi;
import dev.crucible.verifier.api.EpisodeHolder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/**
 * One rollout's trajectory from open to close, the same for a local attempt (cli's {@code AttemptTrajectory}) and a
 * rollout pod ({@code PodSidecar}): a {@link RolloutTrace} over a recorder in a folder the agent cannot reach, the
 * API's calls and each episode's monitor observed, a trainer's handed-in trajectory merged, then grading, the outcome
 * and {@code trajectory.atif.json}. Nothing here throws at the rollout: a trajectory problem makes it incomplete, no more.
 */
public final class EpisodeTrajectory {
    private final RolloutTrace trace;
    private final String session;

    private EpisodeTrajectory(RolloutTrace trace, String session) {
        this.trace = trace;
        this.session = session;
    }

    /**
     * A recorder in {@code dir} (made if missing). {@code rootEndsByCaller}: the agent's root process is the caller's
     * child, so its end and exit status come from {@link RolloutTrace#rootExited} rather than from sampling.
     */
    public static EpisodeTrajectory open(Path dir, String session, boolean rootEndsByCaller) {
        return new EpisodeTrajectory(new RolloutTrace(TrajectoryRecorder.open(dir, RecorderLimits.defaults()), rootEndsByCaller), session);
    }

    public RolloutTrace trace() { return trace; }

    public Path dir() { return trace.recorder().dir(); }

    /** Interactive mode: every API call, and from each reset on what that episode's monitor sees. */
    public void observe(EpisodeHolder holder, EnvironmentApi api) {
        holder.observe(trace);
        api.observe(trace);
        api.onTrajectory(doc -> HandedInTrajectory.merge(doc, "POST /v1/trajectory", trace.recorder()));
    }

    /**
     * The agent framework's own trajectory, when it left one at {@code file} (a place a trainer outside the box can
     * write and the agent inside cannot): merged as agent.step events, or refused whole with the field that is wrong,
     * recorded as a problem (the trajectory is then incomplete; the rollout's result stands).
     */
    public void mergeHandedIn(Path file) {
        if (file == null || !Files.exists(file, LinkOption.NOFOLLOW_LINKS)) return;
        try {
            HandedInTrajectory.merge(file, trace.recorder());
        } catch (HandedInTrajectory.Refused e) {
            trace.recorder().append(EventKind.PROBLEM, null, null, Map.of("message", "handed-in trajectory refused: " + e.getMessage()));
            trace.recorder().problem("handed-in trajectory refused: " + e.getMessage());
        }
    }

    /** The outcome event's fields, the same for a local attempt and a pod (null rewards and verdict left out). */
    public static Map<String, Object> outcome(String phase, String reason, String message, Double reward, Double testReward,
                                              String verdict, int findings) {
        Map<String, Object> o = new java.util.LinkedHashMap<>();
        o.put("phase", phase);
        o.put("reason", reason);
        o.put("message", message);
        if (reward != null) o.put("reward", reward);
        if (testReward != null) o.put("testReward", testReward);
        if (verdict != null) o.put("verdict", verdict);
        o.put("findings", findings);
        return o;
    }

    /**
     * Grading ({@code report} may be null: grading did not run) and the outcome's {@code fields}, then the recorder is
     * closed and the ATIF document written beside its segments. Returns what was stored, complete or not and why.
     */
    public TrajectoryStatus finish(String gradeCommand, VerifyReport report, Map<String, Object> outcome, AtifExport.AgentInfo agent) {
        try {
            if (report != null) trace.grading(gradeCommand, report);
            trace.outcome(outcome);
        } catch (RuntimeException e) {
            trace.recorder().problem("outcome not recorded: " + e);
        }
        TrajectoryRecorder rec = trace.recorder();
        rec.close();
        try {
            AtifExport.write(rec.dir(), session, agent, rec.limits().capBytes()).forEach(p -> rec.problem("reading back for ATIF: " + p));
            rec.exported(java.nio.file.Files.size(rec.dir().resolve(AtifExport.FILE)));
        } catch (IOException | RuntimeException e) {
            rec.problem("trajectory.atif.json not written: " + e.getMessage());
        }
        return rec.status();
    }
}
