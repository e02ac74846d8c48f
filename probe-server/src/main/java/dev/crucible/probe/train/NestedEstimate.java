package dev.crucible.probe.train;

import dev.crucible.probe.head.ProbeHead;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The honest figure: nested grouped cross-validation. Each outer fold's groups are set aside; the
 * whole sweep and the selection run on the remaining groups under their own inner grouped folds;
 * the chosen cell is refitted on those groups, Platt-calibrated on its inner held-out logits, and
 * scores the set-aside groups. Every row is scored once by a pipeline that never saw its group, so
 * the figure carries no selection bias (the sweep's own best cell does: it is the maximum of many
 * noisy estimates on the folds that chose it).
 */
public final class NestedEstimate {

    /** Held-out calibrated logits per row, the cell each outer fold chose, and the figures. */
    public record Result(double[] heldOutLogits, List<String> selectedPerFold, HeldOutFigures figures,
                         int outerFolds, int innerFolds) {
    }

    private NestedEstimate() {
    }

    /**
     * @param sweepFor a sweep over the given per-row folds (-1 = not in it), sharing activations
     * @param outer    outer fold per row (the sweep's own grouped folds)
     */
    public static Result run(Function<int[], ProbeSweep> sweepFor, int[] labels, List<String> groups, int[] outer,
                             int innerFolds, List<SweepCell> cells, ProbeSelector selector, HeadTrainer trainer,
                             long seed, int threads) throws Exception {
        int k = GroupedFolds.count(outer);
        double[] held = new double[labels.length];
        List<String> chosen = new ArrayList<>();
        int minInner = Integer.MAX_VALUE;
        for (int o = 0; o < k; o++) {
            int[] innerRows = FoldRows.where(outer, o, false);
            List<String> innerGroups = new ArrayList<>();
            for (int r : innerRows) {
                innerGroups.add(groups.get(r));
            }
            int[] innerAssigned = GroupedFolds.assign(innerGroups, innerFolds, seed + 31L * (o + 1));
            int[] inner = new int[labels.length];
            java.util.Arrays.fill(inner, -1);
            for (int i = 0; i < innerRows.length; i++) {
                inner[innerRows[i]] = innerAssigned[i];
            }
            minInner = Math.min(minInner, GroupedFolds.count(innerAssigned));
            ProbeSweep sweep = sweepFor.apply(inner);
            CellResult sel = selector.select(sweep.run(cells, threads));
            chosen.add(sel.cell().label());
            SweepCell c = sel.cell();
            float[][] x = sweep.features(c.layer(), c.pooling(), c.turnAggregation());
            ProbeHead head = trainer.train(c.label(), x, labels, innerRows, c.architecture(), c.balance(), seed + o);
            Logistic1D platt = Logistic1D.calibration(sel.oofLogits(), labels, innerRows);
            for (int r : FoldRows.where(outer, o, true)) {
                held[r] = platt.apply(head.logit(x[r]));
            }
        }
        return new Result(held, chosen, HeldOutFigures.of(labels, held), k, minInner);
    }
}
