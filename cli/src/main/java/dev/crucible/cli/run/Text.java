package dev.crucible.cli.run;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Shortening, escaping and tail-reading of text for terminal lines. */
public final class Text {
    private Text() {}

    static String shorten(String s, int max) {
        String one = s.replace('\n', ' ').replace('\r', ' ');
        return one.length() <= max ? one : one.substring(0, max - 1) + "…";
    }

    /**
     * {@code s} safe to print on a terminal: every control character (C0 with newline, carriage return and tab, DEL,
     * C1, so ESC and every escape sequence it starts), the Unicode line and paragraph separators and the bidirectional
     * overrides are shown as visible escapes ({@code \x1b}, {@code \n}; U+202E as backslash-u202e). Agent-chosen names and evidence
     * go through this on their way to the terminal (every {@link Progress} line and {@link HumanSummary} line), so they
     * can neither drive the terminal (OSC 52 clipboard writes, title changes, screen clears) nor forge a line of their
     * own; result.json keeps the exact strings.
     */
    public static String visible(String s) {
        if (s == null) return null;
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String esc = escape(c);
            if (esc == null) {
                if (sb != null) sb.append(c);
                continue;
            }
            if (sb == null) sb = new StringBuilder(s.length() + 16).append(s, 0, i);
            sb.append(esc);
        }
        return sb == null ? s : sb.toString();
    }

    private static String escape(char c) {
        switch (c) {
            case '\n': return "\\n";
            case '\r': return "\\r";
            case '\t': return "\\t";
            default: break;
        }
        if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f)) return String.format("\\x%02x", (int) c);
        if (dev.crucible.trajectory.TraceText.reordersOrBreaks(c)) return String.format("\\u%04x", (int) c);
        return null;
    }

    /** The last non-blank line of a (growing) log file, reading at most its last 4 KiB. */
    static String lastLine(Path file) {
        String t = tail(file, 4096);
        if (t == null) return null;
        String[] lines = t.split("\n");
        for (int i = lines.length - 1; i >= 0; i--) if (!lines[i].isBlank()) return lines[i];
        return null;
    }

    /** The last {@code max} bytes of a log file the CLI writes (agent.log), as UTF-8; null when unreadable. */
    static String tail(Path file, int max) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long len = f.length();
            int n = (int) Math.min(len, max);
            byte[] b = new byte[n];
            f.seek(len - n);
            f.readFully(b);
            return new String(b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    /** 30s, 5m, 1h, 500ms: as --snapshot-every takes it. */
    static String duration(java.time.Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0) return ms / 3_600_000 + "h";
        if (ms % 60_000 == 0) return ms / 60_000 + "m";
        if (ms % 1000 == 0) return ms / 1000 + "s";
        return ms + "ms";
    }
}
