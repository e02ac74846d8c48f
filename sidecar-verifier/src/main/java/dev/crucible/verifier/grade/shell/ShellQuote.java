package dev.crucible.verifier.grade.shell;

/** POSIX single-quote quoting, so case arguments and paths reach the program unchanged. */
public final class ShellQuote {
    private ShellQuote() {}

    public static String quote(String s) { return "'" + s.replace("'", "'\"'\"'") + "'"; }
}
