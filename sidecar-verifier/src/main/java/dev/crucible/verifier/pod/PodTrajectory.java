package dev.crucible.verifier.pod;

import dev.crucible.contract.TerminalOutcome;
import dev.crucible.contract.VerifierResultJson;
import dev.crucible.trajectory.AtifExport;
import dev.crucible.trajectory.TraceShipper;
import dev.crucible.trajectory.TrajectoryStatus;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.api.EnvironmentApi;
import dev.crucible.verifier.api.EpisodeHolder;
import dev.crucible.verifier.trace.EpisodeTrajectory;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A rollout pod's trajectory (issue 36): recorded by the sidecar, outside every container the agent can reach, from
 * the first API call to the outcome, and streamed to the cluster's trace store while the run goes on when the operator
 * configured one ({@link PodTrace}). Neither the recorder nor the store can fail the rollout: what goes wrong makes the
 * trajectory incomplete, and the result says so ({@link VerifierResultJson.Trajectory}).
 */
final class PodTrajectory {
    static final int LAST_TRIES = 3;
    private final EpisodeTrajectory episode;
    private final TraceShipper shipper;
    private final String problem;

    private PodTrajectory(EpisodeTrajectory episode, TraceShipper shipper, String problem) {
        this.episode = episode;
        this.shipper = shipper;
        this.problem = problem;
    }

    /** Starts recording what {@code holder}'s episodes and {@code api}'s calls do, and shipping every {@code every}. */
    static PodTrajectory start(PodTrace trace, EpisodeHolder holder, EnvironmentApi api, Duration every) {
        EpisodeTrajectory episode;
        try {
            episode = EpisodeTrajectory.open(trace.recorderDir(), trace.rollout() == null ? "rollout" : trace.namespace() + "/" + trace.rollout(), false);
        } catch (RuntimeException e) {
            return new PodTrajectory(null, null, "no trajectory recorded: " + e.getMessage());
        }
        episode.observe(holder, api);
        TraceShipper shipper = trace.ships() ? new TraceShipper(episode.dir(), trace.rolloutUri(), trace.token()).start(every) : null;
        return new PodTrajectory(episode, shipper, null);
    }

    /**
     * Grading and the outcome recorded, the recorder closed, a last round sent to the store (which also sends the ATIF
     * document's source: every segment and blob). Returns what the result carries about it.
     */
    VerifierResultJson.Trajectory finish(String gradeCommand, VerifyReport report, TerminalOutcome outcome, int turns, int findings) {
        if (episode == null) return new VerifierResultJson.Trajectory(false, null, problem);
        Map<String, Object> o = EpisodeTrajectory.outcome(outcome.phase().name(), outcome.reason(), outcome.message(),
                report == null ? null : report.reward(), report == null ? null : report.testReward(), report == null ? null : report.verdict(),
                findings);
        o.put("turns", turns);
        TrajectoryStatus kept = episode.finish(gradeCommand, report, o, new AtifExport.AgentInfo("rollout pod", "unknown", Map.of("mode", "pod")));
        String first = kept.problems() == null || kept.problems().isEmpty() ? null : kept.problems().get(0);
        boolean complete = kept.complete();
        if (shipper != null && !lastRounds()) {
            complete = false;
            List<String> p = shipper.problems();
            if (first == null) first = "trace store: " + (p.isEmpty() ? "the last segments were not taken" : p.get(p.size() - 1));
        }
        return new VerifierResultJson.Trajectory(complete, kept.events(), first);
    }

    /**
     * The rounds stop, then a last one sends what is left (the outcome among it), tried {@link #LAST_TRIES} times: a
     * store that was down for a while and is back has everything. False when the store's copy stays short.
     */
    private boolean lastRounds() {
        shipper.abandon();
        for (int i = 0; i < LAST_TRIES; i++) {
            if (shipper.ship()) return true;
            if (shipper.stopped()) return false; // refused for good (400, 413): retrying cannot help
            try {
                Thread.sleep(1000L << i);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }
}
