package dev.crucible.console.store;

import java.util.List;

/**
 * What the rollouts view shows of one attempt folder, read from its result.json. {@code id} is the folder's path
 * relative to the console's RUNS folder ('/'-separated): the only handle a client has on a rollout (it is looked up in
 * the index, never resolved as a path). {@code restoredFrom}: the snapshot a restored branch continued from;
 * {@code snapshots}: the ids of the snapshots it took (those left after pruning): the lineage's edges; {@code labels}: the
 * Rollout's labels (empty when it has none). Numbers are null where result.json has none (a run that never graded).
 */
public record RolloutSummary(String id, String rollout, String environment, String group, Integer attempt, String mode,
                             String phase, String reason, String message, Double reward, Double testReward, String verdict,
                             String startedAt, Long totalMs, Tests tests, List<FindingSummary> findings, Trajectory trajectory,
                             String restoredFrom, List<String> snapshots, java.util.Map<String, String> labels) {

    public record Tests(int passed, int failed, int skipped, int total) {}

    /** result.json's trajectory status; {@code present}: whether a trajectory/segments folder is beside result.json. */
    public record Trajectory(boolean present, Boolean complete, Long events) {}
}
