package dev.crucible.probe.train;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/** The classification, ranking and calibration metrics PROPEL reports for a probe. */
public final class ProbeMetrics {
    private ProbeMetrics() {
    }

    /** Mean of sensitivity and specificity at probability 0.5 (logit 0). */
    public static double balancedAccuracy(int[] y, double[] logit) {
        int tp = 0;
        int tn = 0;
        int pos = 0;
        int neg = 0;
        for (int i = 0; i < y.length; i++) {
            boolean pred = logit[i] > 0;
            if (y[i] == 1) {
                pos++;
                tp += pred ? 1 : 0;
            } else {
                neg++;
                tn += pred ? 0 : 1;
            }
        }
        if (pos == 0 || neg == 0) {
            return Double.NaN;
        }
        return 0.5 * ((double) tp / pos + (double) tn / neg);
    }

    public static double f1(int[] y, double[] logit) {
        int tp = 0;
        int fp = 0;
        int fn = 0;
        for (int i = 0; i < y.length; i++) {
            boolean pred = logit[i] > 0;
            if (pred && y[i] == 1) {
                tp++;
            } else if (pred) {
                fp++;
            } else if (y[i] == 1) {
                fn++;
            }
        }
        return tp == 0 ? 0.0 : 2.0 * tp / (2.0 * tp + fp + fn);
    }

    /** ROC AUC by the rank-sum (Mann-Whitney) formula, ties counted half. */
    public static double auc(int[] y, double[] score) {
        double[] ranks = ranks(score);
        double sumPos = 0;
        long pos = 0;
        for (int i = 0; i < y.length; i++) {
            if (y[i] == 1) {
                sumPos += ranks[i];
                pos++;
            }
        }
        long neg = y.length - pos;
        if (pos == 0 || neg == 0) {
            return Double.NaN;
        }
        return (sumPos - pos * (pos + 1) / 2.0) / ((double) pos * neg);
    }

    /** Expected calibration error over {@code bins} equal-width probability bins. */
    public static double ece(int[] y, double[] probability, int bins) {
        double[] conf = new double[bins];
        double[] acc = new double[bins];
        int[] count = new int[bins];
        for (int i = 0; i < y.length; i++) {
            int b = Math.min(bins - 1, (int) (probability[i] * bins));
            conf[b] += probability[i];
            acc[b] += y[i];
            count[b]++;
        }
        double e = 0;
        for (int b = 0; b < bins; b++) {
            if (count[b] > 0) {
                e += Math.abs(acc[b] - conf[b]) / y.length;
            }
        }
        return e;
    }

    /** Spearman rank correlation (Pearson on average ranks). */
    public static double spearman(double[] a, double[] b) {
        return pearson(ranks(a), ranks(b));
    }

    public static double pearson(double[] a, double[] b) {
        double ma = Arrays.stream(a).average().orElse(0);
        double mb = Arrays.stream(b).average().orElse(0);
        double num = 0;
        double da = 0;
        double db = 0;
        for (int i = 0; i < a.length; i++) {
            num += (a[i] - ma) * (b[i] - mb);
            da += (a[i] - ma) * (a[i] - ma);
            db += (b[i] - mb) * (b[i] - mb);
        }
        return da == 0 || db == 0 ? Double.NaN : num / Math.sqrt(da * db);
    }

    /** Population variance. */
    public static double variance(double[] v) {
        double m = Arrays.stream(v).average().orElse(0);
        return Arrays.stream(v).map(x -> (x - m) * (x - m)).average().orElse(0);
    }

    static double[] ranks(double[] v) {
        Integer[] order = IntStream.range(0, v.length).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.comparingDouble(i -> v[i]));
        double[] r = new double[v.length];
        int i = 0;
        while (i < order.length) {
            int j = i;
            while (j + 1 < order.length && v[order[j + 1]] == v[order[i]]) {
                j++;
            }
            double avg = (i + j) / 2.0 + 1;
            for (int k = i; k <= j; k++) {
                r[order[k]] = avg;
            }
            i = j + 1;
        }
        return r;
    }
}
