package dev.crucible.probe.train;

import dev.crucible.probe.head.DenseLayer;
import dev.crucible.probe.head.ProbeHead;
import java.util.ArrayList;
import java.util.List;

/**
 * One-feature logistic regression P(y=1 | x) = sigmoid(a·x + b), fitted by Newton's method on the
 * log-loss. It is Platt scaling when x is a probe logit (with Platt's smoothed targets, so a
 * separable fold cannot drive the slope to infinity) and a length or turn-count baseline when x is
 * a shortcut feature. Two parameters: a library would cost more than these few lines.
 */
public record Logistic1D(double a, double b) {

    /** Fits on rows {@code rows} of (x, y); {@code smoothTargets} uses Platt's (N₊+1)/(N₊+2) targets. */
    public static Logistic1D fit(double[] x, int[] y, int[] rows, boolean smoothTargets) {
        int pos = 0;
        for (int r : rows) {
            pos += y[r];
        }
        int neg = rows.length - pos;
        double hi = smoothTargets ? (pos + 1.0) / (pos + 2.0) : 1.0;
        double lo = smoothTargets ? 1.0 / (neg + 2.0) : 0.0;
        double base = (pos + 1.0) / (rows.length + 2.0);
        double a = 0;
        double b = Math.log(base / (1 - base));
        if (pos == 0 || neg == 0) {
            return new Logistic1D(0, b);
        }
        for (int it = 0; it < 100; it++) {
            // gradient and Hessian of the mean log-loss, with a tiny ridge so a flat x stays solvable
            double ga = 1e-6 * a;
            double gb = 0;
            double haa = 1e-6;
            double hab = 0;
            double hbb = 1e-12;
            for (int r : rows) {
                double p = ProbeHead.sigmoid(a * x[r] + b);
                double t = y[r] == 1 ? hi : lo;
                double w = Math.max(p * (1 - p), 1e-12);
                ga += (p - t) * x[r];
                gb += p - t;
                haa += w * x[r] * x[r];
                hab += w * x[r];
                hbb += w;
            }
            double det = haa * hbb - hab * hab;
            if (!(Math.abs(det) > 1e-18)) {
                break;
            }
            double da = (hbb * ga - hab * gb) / det;
            double db = (haa * gb - hab * ga) / det;
            a -= da;
            b -= db;
            if (Math.abs(da) < 1e-9 && Math.abs(db) < 1e-9) {
                break;
            }
        }
        return new Logistic1D(a, b);
    }

    public static Logistic1D fit(double[] x, int[] y, boolean smoothTargets) {
        return fit(x, y, java.util.stream.IntStream.range(0, x.length).toArray(), smoothTargets);
    }

    /** The fitted logit a·x + b. */
    public double apply(double x) {
        return a * x + b;
    }

    /**
     * Platt calibration as a probe needs it: never flips the ranking (a held-out fit with a negative
     * slope means the probe carries no signal, so every row gets the smoothed base rate).
     */
    public static Logistic1D calibration(double[] x, int[] y, int[] rows) {
        Logistic1D m = fit(x, y, rows, true);
        if (m.a >= 0) {
            return m;
        }
        double pos = java.util.Arrays.stream(rows).map(r -> y[r]).sum();
        double rate = (pos + 1.0) / (rows.length + 2.0);
        return new Logistic1D(0, Math.log(rate / (1 - rate)));
    }

    public static Logistic1D calibration(double[] x, int[] y) {
        return calibration(x, y, java.util.stream.IntStream.range(0, x.length).toArray());
    }

    /**
     * Out-of-fold application: each row's value comes from a fit on the other folds' rows, so a
     * calibrated held-out figure is still held out. Rows with fold < 0 are left NaN.
     */
    public static double[] crossFitted(double[] x, int[] y, int[] folds, boolean calibration) {
        double[] out = new double[x.length];
        java.util.Arrays.fill(out, Double.NaN);
        int k = GroupedFolds.count(folds);
        for (int f = 0; f < k; f++) {
            int[] train = FoldRows.where(folds, f, false);
            int[] test = FoldRows.where(folds, f, true);
            Logistic1D m = calibration ? calibration(x, y, train) : fit(x, y, train, false);
            for (int r : test) {
                out[r] = m.apply(x[r]);
            }
        }
        return out;
    }

    /**
     * The head with this calibration folded into its last (linear) layer, so the served logit is
     * a·logit + b and its sigmoid is the calibrated P(in band); the file format does not change.
     */
    public ProbeHead foldInto(ProbeHead head) {
        List<DenseLayer> layers = new ArrayList<>(head.layers());
        DenseLayer last = layers.get(layers.size() - 1);
        float[][] w = new float[1][];
        w[0] = last.weight()[0].clone();
        for (int i = 0; i < w[0].length; i++) {
            w[0][i] *= (float) a;
        }
        layers.set(layers.size() - 1, new DenseLayer(w, new float[] {(float) (a * last.bias()[0] + b)}));
        return new ProbeHead(head.name(), head.architecture(), head.featureMean(), head.featureScale(), layers);
    }
}
