package dev.crucible.probe.train;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Chooses the heads of a worst-case (min) ensemble (PROPEL eq. 4) by what the min does, not by
 * each head alone: starting from the selected cell, greedily add the cell whose calibrated
 * out-of-fold logits keep the ensemble's held-out AUC highest, stopping at {@code size} heads or
 * when every addition would cost more than {@code slack} AUC. Calibrated logits share one scale,
 * so their minimum compares like with like. Candidates share the selected cell's turn aggregation
 * (the served probe has one).
 */
public final class WorstCaseEnsemble {
    /** AUC an added head may cost: robustness is worth a little accuracy, not much. */
    static final double SLACK = 0.005;

    private WorstCaseEnsemble() {
    }

    public static List<CellResult> select(List<CellResult> results, CellResult selected, int[] labels, int size) {
        List<CellResult> chosen = new ArrayList<>(List.of(selected));
        double[] min = selected.calibratedLogits().clone();
        double current = ProbeMetrics.auc(labels, min);
        // the strongest cells only: a weak head would drag the minimum down
        List<CellResult> pool = results.stream()
                .filter(r -> r != selected && r.cell().turnAggregation().equals(selected.cell().turnAggregation()))
                .sorted(Comparator.comparingDouble(CellResult::auc).reversed()).limit(20).toList();
        while (chosen.size() < size) {
            CellResult best = null;
            double bestAuc = Double.NEGATIVE_INFINITY;
            for (CellResult c : pool) {
                if (chosen.contains(c)) {
                    continue;
                }
                double auc = ProbeMetrics.auc(labels, minimum(min, c.calibratedLogits()));
                if (auc > bestAuc) {
                    bestAuc = auc;
                    best = c;
                }
            }
            if (best == null || bestAuc < current - SLACK) {
                break;
            }
            chosen.add(best);
            min = minimum(min, best.calibratedLogits());
            current = bestAuc;
        }
        return chosen;
    }

    /** The ensemble's calibrated out-of-fold logits. */
    public static double[] logits(List<CellResult> members) {
        double[] min = members.get(0).calibratedLogits().clone();
        for (CellResult c : members.subList(1, members.size())) {
            min = minimum(min, c.calibratedLogits());
        }
        return min;
    }

    private static double[] minimum(double[] a, double[] b) {
        double[] out = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = Math.min(a[i], b[i]);
        }
        return out;
    }
}
