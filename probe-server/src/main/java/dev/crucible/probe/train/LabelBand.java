package dev.crucible.probe.train;

/**
 * The learnable band of PROPEL section 3.2: a task is positive when the solver's solve rate lies
 * in [min, max], by default 1..3 solves of 8 (solved sometimes, not saturated). Expressed as
 * rates so corpora with other n (e.g. 3 trials for SWE) use the same rule.
 */
public record LabelBand(double min, double max) {
    public static final LabelBand DEFAULT = new LabelBand(1.0 / 8, 3.0 / 8);
    private static final double EPS = 1e-9;

    public LabelBand {
        if (!(min > 0) || !(max < 1) || min > max) {
            throw new IllegalArgumentException("band must satisfy 0 < min <= max < 1, got [" + min + ", " + max + "]");
        }
    }

    public boolean positive(int k, int n) {
        double rate = (double) k / n;
        return rate >= min - EPS && rate <= max + EPS;
    }

    /** Parses "1-3/8" (solve counts of n) or "0.125-0.375" (rates). */
    public static LabelBand parse(String raw) {
        String s = raw.trim();
        try {
            if (s.contains("/")) {
                String[] parts = s.split("/");
                double n = Double.parseDouble(parts[1]);
                String[] range = parts[0].split("-");
                return new LabelBand(Double.parseDouble(range[0]) / n, Double.parseDouble(range[1]) / n);
            }
            String[] range = s.split("-");
            return new LabelBand(Double.parseDouble(range[0]), Double.parseDouble(range[1]));
        } catch (RuntimeException e) {
            if (e instanceof IllegalArgumentException iae && !(e instanceof NumberFormatException)) {
                throw iae;
            }
            throw new IllegalArgumentException("band '" + raw + "': expected like 1-3/8 or 0.125-0.375");
        }
    }

    @Override
    public String toString() {
        return "[" + min + ", " + max + "]";
    }
}
