package dev.crucible.probe.train;

import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.pooling.Pooling;
import dev.crucible.probe.reward.RewardComposition;
import java.nio.file.Path;
import java.util.List;

/**
 * Everything {@code crucible probe train} can be told. Empty {@code layers} means every hidden
 * state of the reference model; the default grid is every layer × the seven poolings × linear /
 * MLP / deep MLP, mean over turns, weighted loss, 5 grouped folds. {@code solver}: whose counts in the
 * corpus's {@code solvers} field are the labels (null: the top-level k/n).
 */
public record TrainConfig(Path corpus, Path referenceDir, Path out, LabelBand band, List<Integer> layers,
                          List<String> poolings, List<String> turnAggregations,
                          List<HeadArchitecture> architectures, List<Balance> balances, int folds, int seeds,
                          TrainingOptions training, ProbeSelector selector, RewardComposition reward,
                          int policySample, int threads, Device device, long seed, boolean useCache,
                          String groupKey, Path policy, EvaluationOptions evaluation, String solver) {

    public static TrainConfig defaults(Path corpus, Path referenceDir, Path out) {
        return new TrainConfig(corpus, referenceDir, out, LabelBand.DEFAULT, List.of(), Pooling.STANDARD,
                List.of("mean_full"), List.of(HeadArchitecture.values()), List.of(Balance.WEIGHTED), 5, 1,
                TrainingOptions.DEFAULT, ProbeSelector.DEFAULT, RewardComposition.of("hard_gate", null, null, null),
                256, Runtime.getRuntime().availableProcessors(), Device.AUTO, 17L, true, "group", null,
                EvaluationOptions.DEFAULT, null);
    }

    public TrainConfig withGrid(List<Integer> layers, List<String> poolings, List<String> aggregations,
                                List<HeadArchitecture> architectures, List<Balance> balances) {
        return new TrainConfig(corpus, referenceDir, out, band, layers, poolings, aggregations, architectures,
                balances, folds, seeds, training, selector, reward, policySample, threads, device, seed, useCache, groupKey, policy, evaluation, solver);
    }

    /** Base-policy generations (JSONL, text|turns + valid, no labels) to measure RVP on. */
    public TrainConfig withPolicy(Path file) {
        return new TrainConfig(corpus, referenceDir, out, band, layers, poolings, turnAggregations, architectures,
                balances, folds, seeds, training, selector, reward, policySample, threads, device, seed, useCache, groupKey,
                file, evaluation, solver);
    }

    public TrainConfig withSelector(ProbeSelector s) {
        return new TrainConfig(corpus, referenceDir, out, band, layers, poolings, turnAggregations, architectures,
                balances, folds, seeds, training, s, reward, policySample, threads, device, seed, useCache, groupKey, policy, evaluation, solver);
    }

    public TrainConfig withBand(LabelBand b) {
        return new TrainConfig(corpus, referenceDir, out, b, layers, poolings, turnAggregations, architectures,
                balances, folds, seeds, training, selector, reward, policySample, threads, device, seed, useCache, groupKey, policy, evaluation, solver);
    }

    public TrainConfig withFolds(int f, int s) {
        return new TrainConfig(corpus, referenceDir, out, band, layers, poolings, turnAggregations, architectures,
                balances, f, s, training, selector, reward, policySample, threads, device, seed, useCache, groupKey, policy, evaluation, solver);
    }

    public TrainConfig withReward(RewardComposition r) {
        return new TrainConfig(corpus, referenceDir, out, band, layers, poolings, turnAggregations, architectures,
                balances, folds, seeds, training, selector, r, policySample, threads, device, seed, useCache, groupKey, policy, evaluation, solver);
    }

    /** Corpus field that groups rows into folds, and the seed of folds, sampling and initialisation. */
    public TrainConfig withGrouping(String key, long newSeed) {
        return new TrainConfig(corpus, referenceDir, out, band, layers, poolings, turnAggregations, architectures,
                balances, folds, seeds, training, selector, reward, policySample, threads, device, newSeed, useCache, key, policy, evaluation, solver);
    }

    public TrainConfig withRuntime(int threadCount, Device d, boolean cache) {
        return new TrainConfig(corpus, referenceDir, out, band, layers, poolings, turnAggregations, architectures,
                balances, folds, seeds, training, selector, reward, policySample, threadCount, d, seed, cache, groupKey, policy, evaluation, solver);
    }

    /** Nested CV, permutation null, test corpus, baseline margin, floor choice. */
    public TrainConfig withEvaluation(EvaluationOptions e) {
        return new TrainConfig(corpus, referenceDir, out, band, layers, poolings, turnAggregations, architectures,
                balances, folds, seeds, training, selector, reward, policySample, threads, device, seed, useCache, groupKey,
                policy, e, solver);
    }

    /** Train on the named solver's counts (the corpus's {@code solvers} field); null: the top-level k/n. */
    public TrainConfig withSolver(String name) {
        return new TrainConfig(corpus, referenceDir, out, band, layers, poolings, turnAggregations, architectures,
                balances, folds, seeds, training, selector, reward, policySample, threads, device, seed, useCache, groupKey,
                policy, evaluation, name);
    }
}
