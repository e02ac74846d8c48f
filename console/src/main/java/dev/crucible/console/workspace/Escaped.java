package dev.crucible.console.workspace;

import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The agent's names and file contents made safe to read: control characters (but newline and tab in content) as
 * {@code \xNN}, Unicode bidirectional overrides and invisible separators as {@code \\u{NNNN}} (so a name cannot read as
 * another, "Trojan Source"), bytes that are not UTF-8 as U+FFFD. The pages still insert the result only as text.
 */
public final class Escaped {
    private Escaped() {}

    public static String text(String s) {
        return s == null ? null : escape(s, false);
    }

    public static String content(byte[] b) {
        String s;
        try {
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(b)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            s = new String(b, StandardCharsets.UTF_8);
        }
        return escape(s, true);
    }

    /** NUL bytes in the first 8 KiB: what git and grep take as binary. */
    public static boolean binary(byte[] b) {
        for (int i = 0; i < Math.min(b.length, 8192); i++) if (b[i] == 0) return true;
        return false;
    }

    public static String hex(byte[] b, int n) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i += 16) {
            out.append(String.format("%08x ", i));
            for (int j = i; j < Math.min(n, i + 16); j++) out.append(String.format(" %02x", b[j] & 0xff));
            out.append('\n');
        }
        return out.toString();
    }

    private static String escape(String s, boolean multiline) {
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            if (multiline && (c == '\n' || c == '\t')) out.appendCodePoint(c);
            else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) out.append(String.format("\\x%02x", c));
            else if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f || c == 0x061c
                    || c == 0x200b || c == 0xfeff || c == 0x2028 || c == 0x2029) out.append(String.format("\\u{%04x}", c));
            else out.appendCodePoint(c);
        });
        return out.toString();
    }
}
