package dev.crucible.trajectory;

import java.util.Map;

/** One readable line per event: the timeline of {@code crucible trace} and the ATIF steps' {@code message}. */
public final class TraceText {
    private TraceText() {}

    public static String summary(TraceEvent e) {
        String s = switch (e.kind()) {
            case EventKind.PROCESS_START -> "started pid " + e.text("pid") + opt(" (the agent's root, running: ", oneLine(e.text("agentCommand"), 200), ")") + ": " + headTail(e.text("command")) + opt(" (cwd ", e.text("cwd"), ")");
            case EventKind.PROCESS_END -> "ended pid " + e.text("pid") + opt(" with status ", e.text("exitStatus"), "")
                    + opt(" after ", e.text("durationMs"), " ms") + opt(" (", e.text("observed"), ")");
            case EventKind.OUTPUT -> e.text("stream") + ": " + oneLine(e.text("text"), 160);
            case EventKind.FILE -> e.text("op") + " " + e.text("path") + opt(" (", e.text("size"), " B") + opt(", ", shortHash(e.text("sha256")), "")
                    + (e.data().get("size") != null ? ")" : "") + opt(" by process #", e.text("process"), "");
            case EventKind.FINDING -> e.text("severity") + " " + e.text("detector") + opt("/", e.text("rule"), "") + opt(" on ", e.text("path"), "")
                    + ": " + oneLine(e.text("evidence"), 160) + opt(" [", e.text("action"), "]");
            case EventKind.STEP -> e.text("tool") + " " + oneLine(String.valueOf(e.data().get("args")), 120) + opt(" → exit ", e.text("exitCode"), "")
                    + opt(" in ", e.text("durationMs"), " ms");
            case EventKind.RESET, EventKind.VERIFY -> e.kind() + opt(" → ", e.text("result"), "") + opt(" in ", e.text("durationMs"), " ms");
            case EventKind.GRADING -> "grading " + opt("", e.text("command"), "") + opt(" → exit ", e.text("exitCode"), "") + tests(e.data());
            case EventKind.OUTCOME -> e.text("phase") + opt(" (", e.text("reason"), ")") + opt(", reward ", e.text("reward"), "")
                    + opt(": ", oneLine(e.text("message"), 160), "");
            case EventKind.AGENT_STEP -> e.data().get("atif") instanceof Map<?, ?> m
                    ? "agent framework (" + m.get("source") + "): " + oneLine(String.valueOf(m.get("message")), 160) : "agent framework step";
            case EventKind.SNAPSHOT -> "snapshot " + e.text("op") + " " + e.text("id") + opt(" (", e.text("trigger"), ")") + opt(", parent ", e.text("parent"), "")
                    + opt(", frozen ", e.text("freezeWindowMs"), " ms");
            case EventKind.PROBLEM -> "PROBLEM: " + oneLine(e.text("message"), 300);
            case EventKind.END -> "trajectory " + (Boolean.TRUE.equals(e.data().get("complete")) ? "complete" : "INCOMPLETE") + ": "
                    + e.text("events") + " events, " + e.text("bytes") + " bytes" + opt(", dropped ", e.text("dropped"), "")
                    + opt(", problems ", e.text("problems"), "");
            default -> oneLine(String.valueOf(e.data()), 200);
        };
        // every field is the agent's (a file name, a tool's argument): the whole line is made printable, not only the long ones
        return oneLine(s, Integer.MAX_VALUE);
    }

    /** A long command line by its start and its end (a sandbox wrapper's end is the agent's own command). */
    private static String headTail(String cmd) {
        if (cmd == null) return null;
        String one = oneLine(cmd, Integer.MAX_VALUE);
        return one.length() <= 200 ? one : one.substring(0, 60) + " … " + one.substring(one.length() - 120);
    }

    private static String tests(Map<String, Object> d) {
        Object t = d.get("summary");
        return t == null ? "" : " " + t;
    }

    private static String opt(String before, String v, String after) {
        return v == null || v.equals("null") ? "" : before + v + after;
    }

    private static String shortHash(String h) {
        return h == null ? null : h.length() > 19 ? h.substring(0, 19) + "…" : h;
    }

    /**
     * Printable on one line: control characters (an agent's terminal escapes: OSC 52 clipboard writes, title changes,
     * screen clears) shown as \\xNN, newlines as ⏎, the Unicode line separators and bidirectional overrides (a name
     * that reads backwards) as \\uNNNN.
     */
    public static String oneLine(String s, int max) {
        if (s == null) return null;
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < max; i++) {
            char c = s.charAt(i);
            if (c == '\n') b.append('⏎');
            else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) b.append(String.format("\\x%02x", (int) c));
            else if (reordersOrBreaks(c)) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        if (b.length() >= max && s.length() > max) b.append('…');
        return b.toString();
    }

    /** The Unicode line and paragraph separators and the bidirectional marks and overrides: text that reads in another order or on another line. */
    public static boolean reordersOrBreaks(char c) {
        return c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f
                || c == 0x061c;
    }
}
