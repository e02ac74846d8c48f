package dev.crucible.verifier.grade;

/** The last part of a long output: where errors are. */
final class Tail {
    private Tail() {}

    static String of(String s) {
        if (s == null) return null;
        String t = s.strip();
        return t.length() <= 800 ? t : "…" + t.substring(t.length() - 800);
    }
}
