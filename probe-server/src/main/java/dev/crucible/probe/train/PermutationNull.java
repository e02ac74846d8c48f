package dev.crucible.probe.train;

import dev.crucible.probe.head.ProbeHead;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What the held-out figure looks like when the text carries no information about the label:
 * labels are shuffled within each group (so every group keeps its base rate, which grouped folds
 * cannot exploit anyway), the selected cell is trained under the same grouped folds, and its
 * out-of-fold AUC and balanced accuracy are recorded, N times. A figure inside the 5–95 % band is
 * indistinguishable from chance.
 */
public final class PermutationNull {

    /** Null distributions (sorted) and the band. */
    public record Band(int permutations, double[] auc, double[] balancedAccuracy) {
        public double aucLow() { return quantile(auc, 0.05); }
        public double aucHigh() { return quantile(auc, 0.95); }
        public double balancedAccuracyLow() { return quantile(balancedAccuracy, 0.05); }
        public double balancedAccuracyHigh() { return quantile(balancedAccuracy, 0.95); }

        /** One-sided permutation p-value of an observed AUC, (1 + #null ≥ observed) / (N + 1). */
        public double pValue(double observedAuc) {
            long ge = Arrays.stream(auc).filter(a -> a >= observedAuc).count();
            return (1.0 + ge) / (auc.length + 1.0);
        }
    }

    private PermutationNull() {
    }

    public static Band run(float[][] x, int[] labels, List<String> groups, int[] folds, SweepCell cell,
                           HeadTrainer trainer, int permutations, long seed, int threads) throws Exception {
        Map<String, List<Integer>> byGroup = new LinkedHashMap<>();
        for (int i = 0; i < groups.size(); i++) {
            byGroup.computeIfAbsent(groups.get(i), g -> new ArrayList<>()).add(i);
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<Future<double[]>> futures = new ArrayList<>();
            for (int p = 0; p < permutations; p++) {
                long permSeed = seed * 7919L + p;
                futures.add(pool.submit(() -> once(x, shuffledWithinGroups(labels, byGroup, permSeed), folds, cell,
                        trainer, permSeed)));
            }
            double[] auc = new double[permutations];
            double[] ba = new double[permutations];
            for (int p = 0; p < permutations; p++) {
                double[] r = futures.get(p).get();
                auc[p] = r[0];
                ba[p] = r[1];
            }
            Arrays.sort(auc);
            Arrays.sort(ba);
            return new Band(permutations, auc, ba);
        } finally {
            pool.shutdownNow();
        }
    }

    private static double[] once(float[][] x, int[] y, int[] folds, SweepCell cell, HeadTrainer trainer, long seed) {
        double[] oof = new double[y.length];
        int k = GroupedFolds.count(folds);
        double ba = 0;
        for (int f = 0; f < k; f++) {
            int[] test = FoldRows.where(folds, f, true);
            ProbeHead head = trainer.train(cell.label(), x, y, FoldRows.where(folds, f, false), cell.architecture(),
                    cell.balance(), seed + f);
            double[] lt = new double[test.length];
            for (int i = 0; i < test.length; i++) {
                lt[i] = head.logit(x[test[i]]);
                oof[test[i]] = lt[i];
            }
            double b = ProbeMetrics.balancedAccuracy(FoldRows.pick(y, test), lt);
            ba += (Double.isNaN(b) ? 0.5 : b) / k;
        }
        return new double[] {ProbeMetrics.auc(y, oof), ba};
    }

    static int[] shuffledWithinGroups(int[] labels, Map<String, List<Integer>> byGroup, long seed) {
        Random rnd = new Random(seed);
        int[] out = labels.clone();
        for (List<Integer> rows : byGroup.values()) {
            for (int i = rows.size() - 1; i > 0; i--) {
                int j = rnd.nextInt(i + 1);
                int a = rows.get(i);
                int b = rows.get(j);
                int t = out[a];
                out[a] = out[b];
                out[b] = t;
            }
        }
        return out;
    }

    /** Linear interpolation between order statistics of a sorted array. */
    static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(sorted.length - 1, lo + 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }
}
