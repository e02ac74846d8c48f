package dev.crucible.probe.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Everything training measured besides the sweep: the honest held-out figure (nested grouped CV)
 * with its permutation-null band, the test corpus's figures, the baselines, per-group figures, the
 * served head's calibration and reward variance, the invalid-task floor, and the warnings these
 * raise. Null members were switched off.
 */
public record TrainChecks(NestedEstimate.Result nested, PermutationNull.Band band, HeldOutFigures test,
                          ShortcutBaselines.Result baselines, double spearmanLength,
                          Map<String, HeldOutFigures> perGroup, Logistic1D calibration, double servedRvp,
                          RewardFloor floor, List<Warning> warnings) {

    /** kind: chance, shortcut, baseline or floor. */
    public record Warning(String kind, String message) {
    }

    /** Shortcut baselines need at least this AUC before matching them counts as a shortcut. */
    static final double INFORMATIVE_AUC = 0.6;
    /** |Spearman(score, length)| at which the score is mostly a length reading. */
    static final double LENGTH_CORRELATION = 0.8;

    /** The figure to believe: nested held-out AUC when it ran, else the selection AUC (optimistic). */
    public static double honestAuc(NestedEstimate.Result nested, CellResult selected) {
        return nested != null ? nested.figures().auc() : selected.auc();
    }

    static List<Warning> warnings(CellResult selected, NestedEstimate.Result nested, PermutationNull.Band band,
                                  ShortcutBaselines.Result baselines, double spearmanLength, RewardFloor floor,
                                  double margin) {
        List<Warning> w = new ArrayList<>();
        double auc = honestAuc(nested, selected);
        String which = nested != null ? "held-out" : "selection";
        if (band != null && auc <= band.aucHigh()) {
            w.add(new Warning("chance", String.format(Locale.ROOT, "%s AUC %.3f is inside the permutation-null "
                    + "band [%.3f, %.3f]: the probe is indistinguishable from chance", which, auc, band.aucLow(),
                    band.aucHigh())));
        }
        for (String b : List.of("length", "turnCount")) {
            double ba = baselines.auc().get(b);
            if (ba >= INFORMATIVE_AUC && auc < ba + margin) {
                w.add(new Warning("shortcut", String.format(Locale.ROOT, "%s AUC %.3f does not beat the %s "
                        + "baseline (%.3f) by %.2f: %s alone predicts the band as well, so the probe adds nothing over it "
                        + "or reads it, and a policy can game it", which, auc, b, ba, margin,
                        b.equals("length") ? "length" : "the number of turns")));
            }
        }
        if (Math.abs(spearmanLength) >= LENGTH_CORRELATION) {
            w.add(new Warning("shortcut", String.format(Locale.ROOT, "probe score correlates %.2f (Spearman) "
                    + "with text length", spearmanLength)));
        }
        double bow = baselines.auc().get("bagOfWords");
        if (bow >= INFORMATIVE_AUC && auc < bow + margin) {
            w.add(new Warning("baseline", String.format(Locale.ROOT, "%s AUC %.3f does not beat a bag-of-words "
                    + "logistic regression (%.3f) by %.2f: the reference model adds nothing over word counts",
                    which, auc, bow, margin)));
        }
        if (floor.warning() != null) {
            w.add(new Warning("floor", floor.warning()));
        }
        return w;
    }
}
