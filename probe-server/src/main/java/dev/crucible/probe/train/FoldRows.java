package dev.crucible.probe.train;

/** Row indices of a fold assignment; rows with fold < 0 belong to no fold (held out of this CV). */
public final class FoldRows {
    private FoldRows() {
    }

    /** Rows in fold {@code fold} ({@code inFold}) or in the other folds (not {@code inFold}). */
    public static int[] where(int[] folds, int fold, boolean inFold) {
        return java.util.stream.IntStream.range(0, folds.length)
                .filter(i -> folds[i] >= 0 && (folds[i] == fold) == inFold).toArray();
    }

    /** Rows that take part in the cross-validation at all. */
    public static int[] used(int[] folds) {
        return java.util.stream.IntStream.range(0, folds.length).filter(i -> folds[i] >= 0).toArray();
    }

    public static int[] pick(int[] v, int[] rows) {
        int[] out = new int[rows.length];
        for (int i = 0; i < rows.length; i++) {
            out[i] = v[rows[i]];
        }
        return out;
    }

    public static double[] pick(double[] v, int[] rows) {
        double[] out = new double[rows.length];
        for (int i = 0; i < rows.length; i++) {
            out[i] = v[rows[i]];
        }
        return out;
    }
}
