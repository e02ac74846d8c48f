package dev.crucible.probe.train;

import java.util.Comparator;
import java.util.List;

/**
 * PROPEL's two-stage selection (section 5.2, appendix 14): rank cells by held-out balanced accuracy
 * among those whose calibration is acceptable (ECE ≤ maxEce; all cells if none is), keep those
 * within {@code tolerance} of the best, and pick the one with the highest reward variance under
 * policy: an accurate probe that gives every task the same reward teaches the generator nothing.
 * With tolerance 0 this is plain best balanced accuracy (the paper's SWE rule).
 */
public record ProbeSelector(double maxEce, double tolerance) {
    public static final ProbeSelector DEFAULT = new ProbeSelector(0.25, 0.02);

    public CellResult select(List<CellResult> results) {
        List<CellResult> ok = results.stream().filter(r -> !Double.isNaN(r.balancedAccuracy())).toList();
        if (ok.isEmpty()) {
            throw new IllegalStateException("no sweep cell produced a balanced accuracy");
        }
        List<CellResult> calibrated = ok.stream().filter(r -> r.ece() <= maxEce).toList();
        List<CellResult> pool = calibrated.isEmpty() ? ok : calibrated;
        double best = pool.stream().mapToDouble(CellResult::balancedAccuracy).max().orElseThrow();
        return pool.stream().filter(r -> r.balancedAccuracy() >= best - tolerance - 1e-12)
                .max(Comparator.comparingDouble(CellResult::rvp)
                        .thenComparingDouble(CellResult::balancedAccuracy))
                .orElseThrow();
    }
}
