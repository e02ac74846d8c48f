package dev.crucible.probe.train;

import dev.crucible.probe.reward.RewardComposition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * PROPEL's RVP validation panel (appendix 15, figure 9) offline: for every sweep cell, its reward
 * variance under policy against the gain that optimising its reward would buy. The paper's gain is a
 * short RL run per probe; training cannot run RL, so the gain here is the best-of-N proxy (Gao et al.
 * 2023 find best-of-N and RL trace the same proxy-versus-true curves): among the cross-validated rows,
 * the share of valid in-band tasks in the top {@code fraction} by the cell's exact RL reward
 * (out-of-fold, calibrated, validity gate included) minus the share in all of them. A probe with
 * near-constant reward can select nothing, so its gain is 0 however accurate it is.
 */
public record RvpGain(double fraction, List<Point> points, double pearson, double spearman) {

    /** One sweep cell on the panel. */
    public record Point(String cell, double rvp, double gain, boolean selected) {
    }

    public static RvpGain of(List<CellResult> results, CellResult selected, int[] labels, boolean[] valid,
                             RewardComposition reward, double fraction) {
        List<Point> points = new ArrayList<>();
        for (CellResult c : results) {
            double[] logits = c.calibratedLogits();
            List<double[]> scored = new ArrayList<>(); // {reward, utility}
            for (int i = 0; i < logits.length && i < labels.length; i++) {
                if (!Double.isNaN(logits[i])) {
                    scored.add(new double[] {reward.reward(logits[i], valid[i]), labels[i] == 1 && valid[i] ? 1 : 0});
                }
            }
            double gain = selectionGain(scored, fraction);
            if (!Double.isNaN(gain) && !Double.isNaN(c.rvp())) {
                points.add(new Point(c.cell().label(), c.rvp(), gain, c == selected));
            }
        }
        double[] x = points.stream().mapToDouble(Point::rvp).toArray();
        double[] y = points.stream().mapToDouble(Point::gain).toArray();
        return new RvpGain(fraction, points, points.size() < 3 ? Double.NaN : ProbeMetrics.pearson(x, y),
                points.size() < 3 ? Double.NaN : ProbeMetrics.spearman(x, y));
    }

    /**
     * Mean utility of the top {@code fraction} by reward minus the mean of all; rows tied at the cut
     * count by their tie group's mean (the expected value of a random tie-break), so a constant reward
     * gains exactly 0.
     */
    static double selectionGain(List<double[]> scored, double fraction) {
        if (scored.isEmpty()) {
            return Double.NaN;
        }
        double[][] s = scored.toArray(new double[0][]);
        Arrays.sort(s, Comparator.comparingDouble((double[] r) -> r[0]).reversed());
        double take = Math.max(1, fraction * s.length);
        double base = Arrays.stream(s).mapToDouble(r -> r[1]).average().orElse(0);
        double taken = 0;
        double utility = 0;
        int i = 0;
        while (i < s.length && taken < take) {
            int j = i;
            double groupUtility = 0;
            while (j < s.length && s[j][0] == s[i][0]) {
                groupUtility += s[j][1];
                j++;
            }
            double share = Math.min(j - i, take - taken);
            utility += groupUtility / (j - i) * share;
            taken += share;
            i = j;
        }
        return utility / taken - base;
    }
}
