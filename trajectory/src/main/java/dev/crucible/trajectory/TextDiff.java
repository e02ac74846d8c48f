package dev.crucible.trajectory;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A bounded unified diff of two versions of a file. Only text (valid UTF-8, no NUL) up to {@link #MAX_INPUT_BYTES}
 * a side is diffed, so a diff never costs more than a few milliseconds; the result is cut at {@link #MAX_DIFF_CHARS}.
 */
public final class TextDiff {
    public static final int MAX_INPUT_BYTES = 256 << 10;
    public static final int MAX_DIFF_CHARS = 16 << 10;
    private static final int MAX_LINES = 5000;

    private TextDiff() {}

    /** The file's text, or null when it is not text (binary, not UTF-8, too large to diff). */
    public static String text(byte[] content) {
        if (content == null || content.length > MAX_INPUT_BYTES) return null;
        for (byte b : content) if (b == 0) return null;
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(content)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** The unified diff from {@code before} (null: the file is new) to {@code after} (null: deleted), or null when too large. */
    public static String unified(String path, String before, String after) {
        List<String> a = before == null ? List.of() : before.lines().toList();
        List<String> b = after == null ? List.of() : after.lines().toList();
        if (a.size() > MAX_LINES || b.size() > MAX_LINES) return null;
        List<String> out = UnifiedDiffUtils.generateUnifiedDiff(before == null ? "/dev/null" : "a/" + path,
                after == null ? "/dev/null" : "b/" + path, a, DiffUtils.diff(a, b), 3);
        StringBuilder sb = new StringBuilder();
        for (String l : out) {
            if (sb.length() + l.length() + 1 > MAX_DIFF_CHARS) {
                sb.append("[diff cut at ").append(MAX_DIFF_CHARS).append(" characters]\n");
                break;
            }
            sb.append(l).append('\n');
        }
        return sb.toString();
    }
}
