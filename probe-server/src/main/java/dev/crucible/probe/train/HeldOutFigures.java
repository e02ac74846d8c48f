package dev.crucible.probe.train;

import dev.crucible.probe.head.ProbeHead;

/**
 * What a probe scores on labelled rows it never trained or was selected on: ROC AUC, balanced
 * accuracy, ECE of its calibrated probabilities, and mean probability beside the base rate. The
 * decision threshold of balanced accuracy is P = the rows' positive rate (the Bayes rule for
 * balanced accuracy when probabilities are calibrated), not 0.5, which would call every row of a
 * rare band negative.
 */
public record HeldOutFigures(int rows, int positives, double auc, double balancedAccuracy, double ece,
                             double meanProbability) {

    /** @param calibratedLogits logits whose sigmoid is meant as P(in band) */
    public static HeldOutFigures of(int[] y, double[] calibratedLogits) {
        int pos = 0;
        double meanP = 0;
        double[] p = new double[y.length];
        for (int i = 0; i < y.length; i++) {
            pos += y[i];
            p[i] = ProbeHead.sigmoid(calibratedLogits[i]);
            meanP += p[i] / y.length;
        }
        double rate = (double) pos / y.length;
        double cut = Math.log(rate / (1 - rate));
        double[] shifted = new double[y.length];
        for (int i = 0; i < y.length; i++) {
            shifted[i] = calibratedLogits[i] - cut;
        }
        return new HeldOutFigures(y.length, pos, ProbeMetrics.auc(y, calibratedLogits),
                ProbeMetrics.balancedAccuracy(y, shifted), ProbeMetrics.ece(y, p, 10), meanP);
    }

    public double baseRate() {
        return rows == 0 ? Double.NaN : (double) positives / rows;
    }

    public String summary() {
        return String.format(java.util.Locale.ROOT, "auc=%.3f bal_acc=%.3f ece=%.3f mean_p=%.3f base_rate=%.3f (%d rows)",
                auc, balancedAccuracy, ece, meanProbability, baseRate(), rows);
    }
}
