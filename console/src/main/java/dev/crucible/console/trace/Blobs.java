package dev.crucible.console.trace;

import dev.crucible.console.store.SafeFiles;
import dev.crucible.trajectory.BlobStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Puts the blobs an event refers to back in place for the step view: each {@code {"blob","bytes","head"}} becomes
 * its text (at most {@link #MAX_BLOB_BYTES} of it). A missing or unreadable blob leaves the head the event kept and a
 * problem naming the field and the blob, so the page says what is missing instead of failing.
 */
final class Blobs {
    static final int MAX_BLOB_BYTES = 256 << 10;
    private final BlobStore store;
    private final List<String> problems;
    private int budget = 4 * MAX_BLOB_BYTES; // one event's blobs, together

    Blobs(Path trajectoryDir, List<String> problems) {
        this.store = new BlobStore(trajectoryDir);
        this.problems = problems;
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> resolve(Map<String, Object> data, String where, int depth) {
        Map<String, Object> out = new LinkedHashMap<>();
        data.forEach((k, v) -> out.put(k, value(v, where.isEmpty() ? k : where + "." + k, depth)));
        return out;
    }

    @SuppressWarnings("unchecked")
    private Object value(Object v, String field, int depth) {
        if (v instanceof Map<?, ?> m && m.get("blob") instanceof String ref && m.containsKey("head")) return text(ref, m, field);
        if (depth < 4 && v instanceof Map<?, ?> m) return resolve((Map<String, Object>) m, field, depth + 1);
        if (depth < 4 && v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < l.size(); i++) out.add(value(l.get(i), field + "[" + i + "]", depth + 1));
            return out;
        }
        return v;
    }

    private String text(String ref, Map<?, ?> m, String field) {
        String head = String.valueOf(m.get("head"));
        if ("dropped".equals(ref)) {
            problems.add("field '" + field + "': its content was not stored (the trajectory's cap or a failed write); only its first "
                    + head.length() + " characters were kept");
            return head;
        }
        try {
            byte[] b = bytes(ref);
            String s = new String(b, StandardCharsets.UTF_8);
            Object total = m.get("bytes");
            if (total instanceof Number n && n.longValue() > b.length) {
                s += "\n… [" + (n.longValue() - b.length) + " more bytes in blob " + ref + "]";
            }
            return s;
        } catch (IOException | IllegalArgumentException e) {
            problems.add("field '" + field + "': blob " + ref + " is missing from trajectory/blobs (" + e.getMessage()
                    + "); showing the first " + head.length() + " characters the event kept");
            return head;
        }
    }

    /** A blob's bytes, at most what is left of this event's budget. */
    byte[] bytes(String ref) throws IOException {
        Path p = store.path(ref);
        if (budget <= 0) return new byte[0];
        byte[] b = SafeFiles.read(p, Math.min(MAX_BLOB_BYTES, budget));
        budget -= b.length;
        return b;
    }
}
