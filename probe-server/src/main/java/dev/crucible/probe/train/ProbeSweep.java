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
    private final Map<String, float[][]> features = new ConcurrentHashMap<>();
    private final Map<String, float[][]> policyFeatures = new ConcurrentHashMap<>();
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
                int[] train = rowsWhere(f, false);
                int[] test = rowsWhere(f, true);
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
        double[] prob = new double[oof.length];
        for (int i = 0; i < oof.length; i++) {
            prob[i] = ProbeHead.sigmoid(oof[i]);
        }
        double mean = java.util.Arrays.stream(foldBalAcc).average().orElse(Double.NaN);
        double std = Math.sqrt(ProbeMetrics.variance(foldBalAcc));
        double[] rewards;
        if (policyLogits != null) {
            rewards = new double[policyLogits.length];
            for (int i = 0; i < rewards.length; i++) {
                rewards[i] = reward.reward(policyLogits[i], policyValid[i]);
            }
        } else {
            rewards = new double[policySample.length];
            for (int i = 0; i < policySample.length; i++) {
                int r = policySample[i];
                rewards[i] = reward.reward(oof[r], valid[r]);
            }
        }
        return new CellResult(cell, mean, std, ProbeMetrics.auc(labels, oof), ProbeMetrics.f1(labels, oof),
                ProbeMetrics.ece(labels, prob, 10), ProbeMetrics.spearman(oof, solveRates),
                ProbeMetrics.spearman(oof, bandDistance()),
                ProbeMetrics.variance(rewards), oof);
    }

    /**
     * Closeness of the solve rate to the band's centre (negated distance): a band probe should rank
     * middling tasks above both trivial and impossible ones, which raw solve rate cannot show.
     */
    private double[] bandDistance() {
        double[] d = new double[solveRates.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = -Math.abs(solveRates[i] - bandCentre);
        }
        return d;
    }

    /** Centre of the label band, for {@code spearmanBand}. */
    public ProbeSweep bandCentre(double centre) {
        this.bandCentre = centre;
        return this;
    }

    private int[] rowsWhere(int fold, boolean inFold) {
        int n = 0;
        for (int f : folds) {
            if ((f == fold) == inFold) {
                n++;
            }
        }
        int[] out = new int[n];
        int j = 0;
        for (int i = 0; i < folds.length; i++) {
            if ((folds[i] == fold) == inFold) {
                out[j++] = i;
            }
        }
        return out;
    }
}
