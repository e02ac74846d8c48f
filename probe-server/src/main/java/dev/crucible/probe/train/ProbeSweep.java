package dev.crucible.probe.train;

import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.pooling.Pooling;
import dev.crucible.probe.reward.RewardComposition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs every sweep cell through grouped cross-validation on cached activations, in parallel across
 * cores; features of a (layer, pooling, aggregation) are built once and shared by its cells.
 */
public final class ProbeSweep {
    private final TurnActivations activations;
    private final int[] labels;
    private final double[] solveRates;
    private final boolean[] valid;
    private final int[] folds;
    private final int[] policySample;
    private final RewardComposition reward;
    private final HeadTrainer trainer;
    private final int seeds;
    private final long seed;
    private final Map<String, float[][]> features;
    private final Map<String, float[][]> policyFeatures;
    private TurnActivations policy;
    private boolean[] policyValid;
    private double bandCentre = 0.25;

    /**
     * Scores RVP on separate base-policy generations instead of a corpus sample: each cell's fold
     * heads score them and their mean logit is the cell's reward input.
     */
    public ProbeSweep policySample(TurnActivations policyActivations, boolean[] valid) {
        this.policy = policyActivations;
        this.policyValid = valid;
        return this;
    }

    public ProbeSweep(TurnActivations activations, int[] labels, double[] solveRates, boolean[] valid, int[] folds,
                      int policySampleSize, RewardComposition reward, TrainingOptions options, int seeds, long seed) {
        this.activations = activations;
        this.labels = labels;
        this.solveRates = solveRates;
        this.valid = valid;
        this.folds = folds;
        this.reward = reward;
        this.trainer = new HeadTrainer(options);
        this.seeds = seeds;
        this.seed = seed;
        this.features = new ConcurrentHashMap<>();
        this.policyFeatures = new ConcurrentHashMap<>();
        // a fixed sample of corpus rows stands in for base-policy generations (they were drawn from it)
        int[] all = java.util.stream.IntStream.range(0, labels.length).toArray();
        Random rnd = new Random(seed);
        for (int i = all.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        this.policySample = java.util.Arrays.copyOf(all, Math.min(policySampleSize, all.length));
    }

    /** The same sweep over other folds (-1: row left out), sharing features: an inner CV of nested CV. */
    public ProbeSweep withFolds(int[] otherFolds) {
        return new ProbeSweep(this, otherFolds, labels, solveRates);
    }

    /** The same sweep (rows, folds, features) on another solver's labels: a column of the solver facets. */
    public ProbeSweep withLabels(int[] otherLabels, double[] otherRates) {
        return new ProbeSweep(this, folds, otherLabels.clone(), otherRates.clone());
    }

    private ProbeSweep(ProbeSweep base, int[] otherFolds, int[] labels, double[] solveRates) {
        this.activations = base.activations;
        this.labels = labels;
        this.solveRates = solveRates;
        this.valid = base.valid;
        this.folds = otherFolds.clone();
        this.policySample = base.policySample;
        this.reward = base.reward;
        this.trainer = base.trainer;
        this.seeds = base.seeds;
        this.seed = base.seed;
        this.features = base.features;
        this.policyFeatures = base.policyFeatures;
        this.policy = base.policy;
        this.policyValid = base.policyValid;
        this.bandCentre = base.bandCentre;
    }

    /** Corpus rows standing in for base-policy generations when no policy file is given. */
    public int[] policySampleRows() {
        return policySample.clone();
    }

    public float[][] features(int layer, String pooling, String aggregation) {
        return features.computeIfAbsent(layer + "|" + pooling + "|" + aggregation,
                k -> activations.features(layer, pooling, Pooling.parse(aggregation)));
    }

    public List<CellResult> run(List<SweepCell> cells, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<Future<CellResult>> futures = new ArrayList<>();
            for (SweepCell c : cells) {
                futures.add(pool.submit(() -> evaluate(c)));
            }
            List<CellResult> out = new ArrayList<>();
            for (Future<CellResult> f : futures) {
                out.add(f.get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    public CellResult evaluate(SweepCell cell) {
        float[][] x = features(cell.layer(), cell.pooling(), cell.turnAggregation());
        int k = GroupedFolds.count(folds);
        double[] oof = new double[labels.length];
        float[][] px = policy == null ? null : policyFeatures.computeIfAbsent(
                cell.layer() + "|" + cell.pooling() + "|" + cell.turnAggregation(),
                key -> policy.features(cell.layer(), cell.pooling(), Pooling.parse(cell.turnAggregation())));
        double[] policyLogits = px == null ? null : new double[px.length];
        double[] foldBalAcc = new double[k];
        for (int s = 0; s < seeds; s++) {
            for (int f = 0; f < k; f++) {
                int[] train = FoldRows.where(folds, f, false);
                int[] test = FoldRows.where(folds, f, true);
                ProbeHead head = trainer.train(cell.label(), x, labels, train, cell.architecture(),
                        cell.balance(), seed + 1000L * s + f);
                int[] yt = new int[test.length];
                double[] lt = new double[test.length];
                for (int i = 0; i < test.length; i++) {
                    double l = head.logit(x[test[i]]);
                    oof[test[i]] += l / seeds;
                    yt[i] = labels[test[i]];
                    lt[i] = l;
                }
                if (px != null) {
                    for (int i = 0; i < px.length; i++) {
                        policyLogits[i] += head.logit(px[i]) / (k * seeds);
                    }
                }
                double ba = ProbeMetrics.balancedAccuracy(yt, lt);
                foldBalAcc[f] += (Double.isNaN(ba) ? 0.5 : ba) / seeds;
            }
        }
        int[] used = FoldRows.used(folds);
        int[] y = FoldRows.pick(labels, used);
        double[] raw = FoldRows.pick(oof, used);
        // Platt scaling fitted on other folds' held-out logits: calibrated probabilities mean P(in band),
        // and rewards on the calibrated logit put every cell on one scale, so RVP cannot favour big logits
        double[] calibratedAll = Logistic1D.crossFitted(oof, labels, folds, true);
        double[] calibrated = FoldRows.pick(calibratedAll, used);
        double mean = java.util.Arrays.stream(foldBalAcc).average().orElse(Double.NaN);
        double std = Math.sqrt(ProbeMetrics.variance(foldBalAcc));
        double[] rewards;
        if (policyLogits != null) {
            Logistic1D platt = Logistic1D.calibration(raw, y);
            rewards = new double[policyLogits.length];
            for (int i = 0; i < rewards.length; i++) {
                rewards[i] = reward.reward(platt.apply(policyLogits[i]), policyValid[i]);
            }
        } else {
            rewards = java.util.Arrays.stream(policySample).filter(r -> folds[r] >= 0)
                    .mapToDouble(r -> reward.reward(calibratedAll[r], valid[r])).toArray();
        }
        double[] rates = FoldRows.pick(solveRates, used);
        return new CellResult(cell, mean, std, ProbeMetrics.auc(y, raw), ProbeMetrics.f1(y, raw),
                ProbeMetrics.ece(y, probabilities(calibrated), 10), ProbeMetrics.ece(y, probabilities(raw), 10),
                ProbeMetrics.spearman(raw, rates), ProbeMetrics.spearman(raw, bandDistance(rates)),
                ProbeMetrics.variance(rewards), oof, calibratedAll);
    }

    private static double[] probabilities(double[] logits) {
        double[] p = new double[logits.length];
        for (int i = 0; i < p.length; i++) {
            p[i] = ProbeHead.sigmoid(logits[i]);
        }
        return p;
    }

    /** The fold of every row (-1: not in this cross-validation). */
    public int[] folds() {
        return folds.clone();
    }

    /**
     * Closeness of the solve rate to the band's centre (negated distance): a band probe should rank
     * middling tasks above both trivial and impossible ones, which raw solve rate cannot show.
     */
    private double[] bandDistance(double[] rates) {
        double[] d = new double[rates.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = -Math.abs(rates[i] - bandCentre);
        }
        return d;
    }

    /** Centre of the label band, for {@code spearmanBand}. */
    public ProbeSweep bandCentre(double centre) {
        this.bandCentre = centre;
        return this;
    }
}
