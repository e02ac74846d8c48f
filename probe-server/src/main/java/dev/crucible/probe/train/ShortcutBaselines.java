package dev.crucible.probe.train;

import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.head.ProbeHead;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Baselines a probe must beat before its figure means anything, each under the sweep's grouped
 * folds: the text's length (log characters) and its turn count (one-feature logistic regressions),
 * and a bag-of-words logistic regression (hashed word counts, the probe trainer's linear head). A
 * probe that only matches length has learnt a shortcut the policy can game by padding.
 */
public final class ShortcutBaselines {
    /** Hashed vocabulary size: enough for task texts, small enough to train in seconds. */
    static final int BUCKETS = 2048;

    /** Out-of-fold AUC per baseline, and the length feature for correlations. */
    public record Result(Map<String, Double> auc, double[] logLength) {
        public String best() {
            return auc.entrySet().stream().filter(e -> !Double.isNaN(e.getValue()))
                    .max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
        }
    }

    private ShortcutBaselines() {
    }

    public static Result run(List<CorpusRow> rows, int[] labels, int[] folds, TrainingOptions options, long seed) {
        int n = rows.size();
        double[] length = new double[n];
        double[] turns = new double[n];
        float[][] words = new float[n][];
        for (int i = 0; i < n; i++) {
            CorpusRow r = rows.get(i);
            length[i] = Math.log1p(r.turns().stream().mapToInt(String::length).sum());
            turns[i] = r.turns().size();
            words[i] = bagOfWords(r.turns());
        }
        Map<String, Double> auc = new LinkedHashMap<>();
        auc.put("length", oneFeature(length, labels, folds));
        auc.put("turnCount", oneFeature(turns, labels, folds));
        auc.put("bagOfWords", bagOfWordsAuc(words, labels, folds, options, seed));
        return new Result(auc, length);
    }

    /** Direction and offset fitted on the training folds, so a length that hurts counts as well. */
    static double oneFeature(double[] x, int[] y, int[] folds) {
        double[] oof = Logistic1D.crossFitted(x, y, folds, false);
        int[] used = FoldRows.used(folds);
        return ProbeMetrics.auc(FoldRows.pick(y, used), FoldRows.pick(oof, used));
    }

    static double bagOfWordsAuc(float[][] x, int[] y, int[] folds, TrainingOptions options, long seed) {
        HeadTrainer trainer = new HeadTrainer(options);
        double[] oof = new double[y.length];
        for (int f = 0; f < GroupedFolds.count(folds); f++) {
            ProbeHead head = trainer.train("bag-of-words", x, y, FoldRows.where(folds, f, false),
                    HeadArchitecture.LINEAR, Balance.WEIGHTED, seed + f);
            for (int r : FoldRows.where(folds, f, true)) {
                oof[r] = head.logit(x[r]);
            }
        }
        int[] used = FoldRows.used(folds);
        return ProbeMetrics.auc(FoldRows.pick(y, used), FoldRows.pick(oof, used));
    }

    /** log(1 + count) of lower-cased word tokens, hashed into {@link #BUCKETS} buckets. */
    static float[] bagOfWords(List<String> turns) {
        float[] v = new float[BUCKETS];
        for (String t : turns) {
            for (String w : t.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}_]+")) {
                if (!w.isEmpty()) {
                    v[Math.floorMod(w.hashCode(), BUCKETS)]++;
                }
            }
        }
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) Math.log1p(v[i]);
        }
        return v;
    }
}
