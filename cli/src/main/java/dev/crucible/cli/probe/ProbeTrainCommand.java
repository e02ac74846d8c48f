package dev.crucible.cli.probe;

import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.reward.RewardComposition;
import dev.crucible.probe.train.Balance;
import dev.crucible.probe.train.CellResult;
import dev.crucible.probe.train.EvaluationOptions;
import dev.crucible.probe.train.LabelBand;
import dev.crucible.probe.train.ProbeSelector;
import dev.crucible.probe.train.ProbeTrainer;
import dev.crucible.probe.train.TrainConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "train", mixinStandardHelpOptions = true,
        description = "Label a corpus with the learnable band, extract reference activations once (cached), "
                + "sweep layer x pooling x aggregation x architecture x balance under grouped cross-validation, "
                + "select as PROPEL does, and write probe.json, head.json, report.json and the figures (sweep.png, "
                + "calibration.png, checks.png, solve_rate.png, rvp_gain.png, sweep_solvers.png with several solvers).")
final class ProbeTrainCommand implements Callable<Integer> {
    @Option(names = "--corpus", required = true, description = "JSONL: {id, text|turns, k, n, group, valid, solvers}")
    Path corpus;

    @Option(names = "--model", required = true, description = "reference model directory (reference.json)")
    Path model;

    @Option(names = "--out", required = true, description = "output probe directory")
    Path out;

    @Option(names = "--band", defaultValue = "1-3/8", description = "positive solve band, e.g. 1-3/8 or 0.3-0.7")
    String band;

    @Option(names = "--layers", description = "hidden-state indices (default: all)")
    String layers;

    @Option(names = "--poolings", description = "token poolings (default: the seven of the paper)")
    String poolings;

    @Option(names = "--aggregations", defaultValue = "mean_full,mean_last_half,max,last_token",
            description = "turn aggregations over per-turn vectors (same names as poolings)")
    String aggregations;

    @Option(names = "--architectures", defaultValue = "linear,mlp,deep_mlp")
    String architectures;

    @Option(names = "--balance", defaultValue = "weighted,downsample", description = "weighted and/or downsample")
    String balance;

    @Option(names = "--folds", defaultValue = "5", description = "grouped cross-validation folds")
    int folds;

    @Option(names = "--seeds", defaultValue = "1", description = "training seeds averaged per cell")
    int seeds;

    @Option(names = "--seed", defaultValue = "17", description = "seed of folds, sampling and initialisation")
    long seed;

    @Option(names = "--group-key", defaultValue = "group", description = "corpus field that groups rows into folds")
    String groupKey;

    @Option(names = "--reward", defaultValue = "hard_gate", description = "hard_gate, soft_gate or probe_only")
    String reward;

    @Option(names = "--invalid-floor", description = "reward of invalid tasks (default: chosen below every valid "
            + "task's reward; a given floor above some valid rewards is warned about)")
    Double invalidFloor;

    @Option(names = "--outer-folds", defaultValue = "5", description = "outer grouped folds of nested CV for the "
            + "held-out figure (0: off; the sweep runs once more per outer fold)")
    int outerFolds;

    @Option(names = "--permutations", defaultValue = "20", description = "label shuffles within groups for the "
            + "chance band of the held-out figure (0: off)")
    int permutations;

    @Option(names = "--test-corpus", description = "labelled JSONL scored only by the final probe (never trained or "
            + "selected on)")
    Path testCorpus;

    @Option(names = "--baseline-margin", defaultValue = "0.02", description = "AUC by which the probe must beat the "
            + "length, turn-count and bag-of-words baselines before the report stops warning")
    double baselineMargin;

    @Option(names = "--ensemble", defaultValue = "1", description = "serve a worst-case (min) ensemble of up to "
            + "this many heads, chosen greedily by the ensemble's out-of-fold AUC")
    int ensemble;

    @Option(names = "--solver", description = "train on this solver's counts from the corpus's 'solvers' field "
            + "(default: the top-level k and n)")
    String solver;

    @Option(names = "--no-solver-facets", description = "skip the sweeps of the corpus's other solvers "
            + "(sweep_solvers.png, report.json solverFacets)")
    boolean noSolverFacets;

    @Option(names = "--policy", description = "base-policy generations (JSONL, text|turns + valid) to measure reward "
            + "variance under policy on; default: a fixed sample of corpus rows")
    Path policy;

    @Option(names = "--max-ece", defaultValue = "0.25", description = "calibration bound for selection")
    double maxEce;

    @Option(names = "--rvp-tolerance", defaultValue = "0.02",
            description = "cells within this of the best balanced accuracy compete on reward variance (0: best bal. acc.)")
    double rvpTolerance;

    @Option(names = "--threads", description = "worker threads (default: all cores)")
    Integer threads;

    @Option(names = "--device", defaultValue = "auto", description = "auto, cpu or cuda")
    String device;

    @Option(names = "--no-cache", description = "re-extract activations even when cached")
    boolean noCache;

    @Override
    public Integer call() throws Exception {
        try {
            return execute();
        } catch (java.io.IOException | IllegalArgumentException | ai.onnxruntime.OrtException e) {
            // bad input: one clear line naming file/field, not a stack trace
            System.err.println("error: " + e.getMessage());
            return 1;
        }
    }

    private int execute() throws Exception {
        TrainConfig cfg = TrainConfig.defaults(corpus, model, out);
        List<String> pool = CsvList.of(poolings);
        cfg = cfg.withGrid(CsvList.of(layers).stream().map(Integer::valueOf).toList(),
                        pool.isEmpty() ? cfg.poolings() : pool, CsvList.of(aggregations),
                        CsvList.of(architectures).stream().map(HeadArchitecture::parse).toList(),
                        CsvList.of(balance).stream().map(Balance::parse).toList())
                .withSelector(new ProbeSelector(maxEce, rvpTolerance)).withPolicy(policy)
                .withBand(LabelBand.parse(band)).withFolds(folds, seeds).withGrouping(groupKey, seed)
                .withReward(RewardComposition.of(reward, invalidFloor, null, null))
                .withEvaluation(new EvaluationOptions(outerFolds, permutations, testCorpus, baselineMargin,
                        invalidFloor == null, ensemble, !noSolverFacets))
                .withSolver(solver)
                .withRuntime(threads == null ? Runtime.getRuntime().availableProcessors() : threads,
                        Device.parse(device), !noCache);
        long t0 = System.nanoTime();
        ProbeTrainer.Outcome o = ProbeTrainer.train(cfg);
        CellResult s = o.selected();
        System.out.printf(java.util.Locale.ROOT, "selected %s  bal_acc=%.3f auc=%.3f f1=%.3f ece=%.3f "
                        + "spearman=%.3f rvp=%.3f  (%d cells, %.1fs: extract %.1fs%s, sweep %.1fs)%n",
                s.cell().label(), s.balancedAccuracy(), s.auc(), s.f1(), s.ece(), s.spearman(), s.rvp(),
                o.results().size(), (System.nanoTime() - t0) / 1e9, o.extractSeconds(),
                o.cacheHit() ? " cached" : "", o.sweepSeconds());
        TrainSummary.print(o, System.out);
        if (o.ensemble().size() > 1) {
            System.out.println("ensemble (worst-case min): " + o.ensemble().stream().map(c -> c.cell().label()).toList());
        }
        System.out.println("wrote " + out.resolve("probe.json") + (o.ensemble().size() > 1 ? ", head-*.json" : ", head.json")
                + ", report.json, sweep.png, calibration.png, checks.png, solve_rate.png, rvp_gain.png"
                + (o.facets().isEmpty() ? "" : ", sweep_solvers.png"));
        return 0;
    }
}
