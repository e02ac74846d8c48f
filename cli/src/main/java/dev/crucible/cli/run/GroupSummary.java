package dev.crucible.cli.run;

import dev.crucible.contract.PhaseName;
import dev.crucible.contract.SpecDefaults;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.crucible.api.v1alpha1.environment.LearnableBand;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The attempts of one rollout taken together (a GRPO-style group): how many solved it, and whether
 * the solve rate lies in the environment's learnable band (solved by some attempts but not all, so
 * the group's rewards differ and carry a learning signal).
 */
@JsonPropertyOrder({"rollout", "environment", "attempts", "solved", "solveRate", "meanReward", "learnableBand", "inLearnableBand",
        "phases", "results"})
public record GroupSummary(String rollout, String environment, int attempts, int solved, double solveRate, Double meanReward,
                           Band learnableBand, boolean inLearnableBand, Map<String, Integer> phases, List<Entry> results) {

    public record Band(double minSolveRate, double maxSolveRate) {
        static Band of(LearnableBand b) {
            return new Band(b == null || b.minSolveRate == null ? SpecDefaults.MIN_SOLVE_RATE : b.minSolveRate,
                    b == null || b.maxSolveRate == null ? SpecDefaults.MAX_SOLVE_RATE : b.maxSolveRate);
        }
    }

    /** One attempt, short; its result.json has the rest. */
    public record Entry(int attempt, PhaseName phase, Double reward, String verdict, int findings, boolean solved, String result) {}

    public static GroupSummary of(RunInputs.RolloutDoc doc, List<RolloutResult> results, List<AttemptDir> dirs) {
        int solved = (int) results.stream().filter(RolloutResult::solved).count();
        double rate = results.isEmpty() ? 0 : (double) solved / results.size();
        List<Double> rewards = results.stream().map(RolloutResult::reward).filter(r -> r != null).toList();
        Double mean = rewards.isEmpty() ? null : rewards.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        Band band = Band.of(doc.environment().spec().learnableBand);
        Map<String, Integer> phases = new TreeMap<>();
        results.forEach(r -> phases.merge(r.phase().name(), 1, Integer::sum));
        List<Entry> entries = new java.util.ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            RolloutResult r = results.get(i);
            entries.add(new Entry(r.attempt(), r.phase(), r.reward(), r.verdict(), r.findingCount(),
                    r.solved(), dirs.get(i).result().toString()));
        }
        return new GroupSummary(doc.name(), doc.environment().name(), results.size(), solved, rate, mean, band,
                rate >= band.minSolveRate() && rate <= band.maxSolveRate(), phases, entries);
    }

    /** e.g. "solved 2/3 (67%): inside the learnable band [0.01, 0.99]". */
    public String line() {
        return String.format("%s: solved %d/%d (%.0f%%), mean reward %s: %s the learnable band [%.2f, %.2f]", rollout, solved, attempts,
                solveRate * 100, meanReward == null ? "-" : String.format("%.3f", meanReward), inLearnableBand ? "inside" : "OUTSIDE",
                learnableBand.minSolveRate(), learnableBand.maxSolveRate());
    }
}
