package dev.crucible.probe.pooling;

import java.util.Locale;

/**
 * A rule that turns a [rows][dim] matrix into one vector: the seven token poolings of PROPEL
 * (appendix 14) plus {@code mean_last_N} for any N. Applied to tokens of one sequence, and again to
 * the per-turn vectors of a trajectory (the paper's "trajectory pooling" uses the same names).
 */
public sealed interface Pooling permits Pooling.LastToken, Pooling.MeanFull, Pooling.MeanLastN,
        Pooling.MeanLastHalf, Pooling.Max, Pooling.Min, Pooling.FirstLastConcat, Pooling.MeanStdConcat {

    /** The seven poolings the paper sweeps, in the order reports list them. */
    java.util.List<String> STANDARD = java.util.List.of("last_token", "mean_full", "mean_last_50",
            "mean_last_half", "max", "first_last_concat", "mean_std_concat");

    String name();

    /** Output width for rows of width {@code dim}. */
    default int outputDim(int dim) {
        return dim;
    }

    /** Pools the first {@code rows} rows of {@code h} (rows beyond are padding and ignored). */
    float[] pool(float[][] h, int rows);

    default float[] pool(float[][] h) {
        return pool(h, h.length);
    }

    static Pooling parse(String raw) {
        String s = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
        switch (s) {
            case "last_token", "last" -> { return new LastToken(); }
            case "mean_full", "mean" -> { return new MeanFull(); }
            case "mean_last_half" -> { return new MeanLastHalf(); }
            case "max" -> { return new Max(); }
            case "min" -> { return new Min(); }
            case "first_last_concat" -> { return new FirstLastConcat(); }
            case "mean_std_concat" -> { return new MeanStdConcat(); }
            default -> { }
        }
        if (s.startsWith("mean_last_")) {
            try {
                int n = Integer.parseInt(s.substring("mean_last_".length()));
                if (n > 0) {
                    return new MeanLastN(n);
                }
            } catch (NumberFormatException ignored) {
                // fall through to the error naming the accepted values
            }
        }
        throw new IllegalArgumentException("unknown pooling '" + raw + "'; expected one of "
                + STANDARD + ", mean_last_N, min, or the aggregation aliases mean / last");
    }

    private static void requireRows(int rows) {
        if (rows <= 0) {
            throw new IllegalArgumentException("cannot pool an empty sequence");
        }
    }

    private static float[] mean(float[][] h, int from, int to) {
        int dim = h[0].length;
        double[] acc = new double[dim];
        for (int t = from; t < to; t++) {
            float[] row = h[t];
            for (int d = 0; d < dim; d++) {
                acc[d] += row[d];
            }
        }
        float[] out = new float[dim];
        int n = to - from;
        for (int d = 0; d < dim; d++) {
            out[d] = (float) (acc[d] / n);
        }
        return out;
    }

    record LastToken() implements Pooling {
        public String name() { return "last_token"; }
        public float[] pool(float[][] h, int rows) {
            requireRows(rows);
            return h[rows - 1].clone();
        }
    }

    record MeanFull() implements Pooling {
        public String name() { return "mean_full"; }
        public float[] pool(float[][] h, int rows) {
            requireRows(rows);
            return mean(h, 0, rows);
        }
    }

    /** Mean of the last n rows (all rows when there are fewer). */
    record MeanLastN(int n) implements Pooling {
        public String name() { return "mean_last_" + n; }
        public float[] pool(float[][] h, int rows) {
            requireRows(rows);
            return mean(h, Math.max(0, rows - n), rows);
        }
    }

    /** Mean of rows [rows/2, rows): the second half, which holds the last row when rows is 1. */
    record MeanLastHalf() implements Pooling {
        public String name() { return "mean_last_half"; }
        public float[] pool(float[][] h, int rows) {
            requireRows(rows);
            return mean(h, rows / 2, rows);
        }
    }

    record Max() implements Pooling {
        public String name() { return "max"; }
        public float[] pool(float[][] h, int rows) {
            return extreme(h, rows, true);
        }
    }

    /** Element-wise minimum; offered as a turn aggregation (the pessimistic turn decides). */
    record Min() implements Pooling {
        public String name() { return "min"; }
        public float[] pool(float[][] h, int rows) {
            return extreme(h, rows, false);
        }
    }

    /** Element-wise maximum (or minimum) over the first {@code rows} rows. */
    private static float[] extreme(float[][] h, int rows, boolean max) {
        requireRows(rows);
        float[] out = h[0].clone();
        for (int t = 1; t < rows; t++) {
            float[] row = h[t];
            for (int d = 0; d < out.length; d++) {
                out[d] = max ? Math.max(out[d], row[d]) : Math.min(out[d], row[d]);
            }
        }
        return out;
    }

    record FirstLastConcat() implements Pooling {
        public String name() { return "first_last_concat"; }
        public int outputDim(int dim) { return 2 * dim; }
        public float[] pool(float[][] h, int rows) {
            requireRows(rows);
            int dim = h[0].length;
            float[] out = new float[2 * dim];
            System.arraycopy(h[0], 0, out, 0, dim);
            System.arraycopy(h[rows - 1], 0, out, dim, dim);
            return out;
        }
    }

    /** Mean then population standard deviation (defined for a single row, where it is 0). */
    record MeanStdConcat() implements Pooling {
        public String name() { return "mean_std_concat"; }
        public int outputDim(int dim) { return 2 * dim; }
        public float[] pool(float[][] h, int rows) {
            requireRows(rows);
            int dim = h[0].length;
            float[] mean = mean(h, 0, rows);
            double[] var = new double[dim];
            for (int t = 0; t < rows; t++) {
                for (int d = 0; d < dim; d++) {
                    double diff = h[t][d] - mean[d];
                    var[d] += diff * diff;
                }
            }
            float[] out = new float[2 * dim];
            System.arraycopy(mean, 0, out, 0, dim);
            for (int d = 0; d < dim; d++) {
                out[dim + d] = (float) Math.sqrt(var[d] / rows);
            }
            return out;
        }
    }
}
