package dev.crucible.console.trace;

import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TraceText;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the search index holds of one event: every text it carries (a command, an output, a diff, a path, a finding's
 * evidence), with the blobs it refers to read back, at most {@link #MAX_CHARS}. Reading the event's blobs costs one
 * bounded read each, once, when the rollout is indexed.
 */
public final class SearchText {
    public static final int MAX_CHARS = 256 << 10;

    private SearchText() {}

    /** The event's text to index; {@code trajectoryDir}: its trajectory/ folder (where its blobs are). */
    public static String of(TraceEvent e, Path trajectoryDir) {
        List<String> problems = new ArrayList<>();
        Map<String, Object> data = new Blobs(trajectoryDir, problems).resolve(e.data(), "", 0);
        StringBuilder b = new StringBuilder(TraceText.summary(e)).append('\n');
        collect(data, b, 0);
        return b.length() > MAX_CHARS ? b.substring(0, MAX_CHARS) : b.toString();
    }

    private static void collect(Object v, StringBuilder b, int depth) {
        if (b.length() >= MAX_CHARS || depth > 6 || v == null) return;
        if (v instanceof Map<?, ?> m) {
            for (Object x : m.values()) collect(x, b, depth + 1);
        } else if (v instanceof List<?> l) {
            for (Object x : l) collect(x, b, depth + 1);
        } else if (v instanceof String s) {
            b.append(s, 0, Math.min(s.length(), MAX_CHARS - b.length())).append('\n');
        }
    }
}
