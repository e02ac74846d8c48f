package dev.crucible.probe.train;

/**
 * Cross-validated metrics of one sweep cell, from out-of-fold predictions (each row predicted by the
 * head that did not see its group). {@code ece} is of the Platt-recalibrated probabilities (fitted on
 * the other folds' held-out logits), {@code rawEce} of the heads' own; {@code rvp} is the variance of
 * the exact RL reward (validity gate included) on the calibrated logit over a fixed policy sample;
 * {@code spearman} is against the raw solve rate (as the paper reports it), {@code spearmanBand}
 * against closeness to the band's centre. {@code oofLogits} (raw) and {@code calibratedLogits} are
 * per corpus row, 0 / NaN for rows outside this cross-validation.
 */
public record CellResult(SweepCell cell, double balancedAccuracy, double balancedAccuracyStd, double auc,
                         double f1, double ece, double rawEce, double spearman, double spearmanBand, double rvp,
                         double[] oofLogits, double[] calibratedLogits) {

    /** Without a separate calibration (tests, hand-built results). */
    public CellResult(SweepCell cell, double balancedAccuracy, double balancedAccuracyStd, double auc, double f1,
                      double ece, double spearman, double spearmanBand, double rvp, double[] oofLogits) {
        this(cell, balancedAccuracy, balancedAccuracyStd, auc, f1, ece, ece, spearman, spearmanBand, rvp,
                oofLogits, oofLogits);
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "%s bal_acc=%.3f±%.3f auc=%.3f f1=%.3f ece=%.3f (raw %.3f) "
                        + "spearman=%.3f rvp=%.3f",
                cell.label(), balancedAccuracy, balancedAccuracyStd, auc, f1, ece, rawEce, spearman, rvp);
    }
}
