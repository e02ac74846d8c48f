package dev.crucible.contract;

/**
 * The verifier's verdict, as reports and results write it (lower case). {@code hacked} is what a
 * terminate policy leaves; {@code error} and no verdict at all mean grading did not give a grade.
 */
public enum Verdict {
    PASS, FAIL, PARTIAL, HACKED, ERROR;

    public String wire() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The verdict written {@code s}, or null when it names none. */
    public static Verdict of(String s) {
        for (Verdict v : values()) {
            if (v.wire().equals(s)) return v;
        }
        return null;
    }

    /** Whether {@code s} is a grade (anything but error or nothing). */
    public static boolean graded(String s) {
        return s != null && !ERROR.wire().equals(s);
    }
}
