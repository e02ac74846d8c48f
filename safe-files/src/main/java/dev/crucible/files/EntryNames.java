package dev.crucible.files;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Names of directory entries as the host's scans key them (issue 34): a file name on Linux is bytes, and a
 * name that is not valid UTF-8 has no Java string that names it again ({@code Path.toString} decodes the
 * bad bytes as U+FFFD, and {@code Path.of} of that is another name), so a scan that keeps names as strings
 * could not read, or even stat, such a file: the agent could hide one from the monitor. Here a name that
 * is valid UTF-8 and holds no {@code \x} is its own key (what every honest tree has); any other is written
 * with each byte that is not part of a valid character as {@code \xNN} and each backslash as
 * {@code \x5c}, so the key is printable, names exactly one entry, and can be a {@code Path} and a JSON string.
 * {@link NoFollowWalk} turns such a key back into the entry with those bytes.
 */
final class EntryNames {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private EntryNames() {}

    /** The key of {@code name}, one component as a directory stream gave it (its bytes intact). */
    static String key(Path name) {
        String s = name.toString();
        if (s.indexOf('\uFFFD') < 0 && !s.contains("\\x")) return s;
        byte[] b = bytes(name);
        String strict = strict(b);
        if (strict != null && !strict.contains("\\x")) return strict; // a real U+FFFD in a valid name
        return escape(b);
    }

    /** Whether {@code key} is an escaped one (it names its entry by bytes, not as text). */
    static boolean escaped(String key) {
        return key.contains("\\x");
    }

    /** The entry's name as bytes: from its file URI, where every byte outside plain ASCII is %XX (Java has no other way to them). */
    static byte[] bytes(Path name) {
        String raw = name.toUri().getRawPath();
        if (raw.endsWith("/")) raw = raw.substring(0, raw.length() - 1);
        raw = raw.substring(raw.lastIndexOf('/') + 1);
        ByteBuffer out = ByteBuffer.allocate(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length()) {
                out.put((byte) Integer.parseInt(raw.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.put((byte) c);
            }
        }
        byte[] b = new byte[out.position()];
        out.flip().get(b);
        return b;
    }

    /**
     * The one-component name with exactly the bytes {@code b}, made through a file URI (the JDK's only way to a
     * {@code Path} from bytes: each byte %XX); null for what no entry is called: empty, {@code .}, {@code ..}, or
     * holding '/' or NUL.
     */
    static Path fromBytes(byte[] b) {
        if (b.length == 0 || b.length == 1 && b[0] == '.' || b.length == 2 && b[0] == '.' && b[1] == '.') return null;
        StringBuilder uri = new StringBuilder("file:///");
        for (byte x : b) {
            int v = x & 0xff;
            if (v == '/' || v == 0) return null;
            if (v < 0x80 && (Character.isLetterOrDigit(v) || v == '-' || v == '.' || v == '_' || v == '~')) uri.append((char) v);
            else uri.append('%').append(HEX[v >> 4]).append(HEX[v & 15]);
        }
        return Path.of(java.net.URI.create(uri.toString())).getFileName();
    }

    /** The bytes an escaped key stands for (the inverse of {@link #escape}). */
    static byte[] unescape(String key) {
        ByteBuffer out = ByteBuffer.allocate(key.length() * 4);
        for (int i = 0; i < key.length(); ) {
            if (key.startsWith("\\x", i) && i + 4 <= key.length() && hex(key.charAt(i + 2)) >= 0 && hex(key.charAt(i + 3)) >= 0) {
                out.put((byte) (hex(key.charAt(i + 2)) * 16 + hex(key.charAt(i + 3))));
                i += 4;
                continue;
            }
            int cp = key.codePointAt(i);
            out.put(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
            i += Character.charCount(cp);
        }
        byte[] b = new byte[out.position()];
        out.flip().get(b);
        return b;
    }

    static String escape(byte[] b) {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(b);
        CharBuffer chunk = CharBuffer.allocate(b.length + 1);
        StringBuilder sb = new StringBuilder();
        while (true) {
            chunk.clear();
            CoderResult r = d.decode(in, chunk, true);
            chunk.flip();
            for (int i = 0; i < chunk.length(); i++) {
                char c = chunk.charAt(i);
                if (c == '\\') sb.append("\\x5c");
                else sb.append(c);
            }
            if (r.isUnderflow()) break;
            for (int i = 0; i < r.length(); i++) {
                int v = in.get() & 0xff;
                sb.append("\\x").append(HEX[v >> 4]).append(HEX[v & 15]);
            }
        }
        return sb.toString();
    }

    private static String strict(byte[] b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }
}
