package dev.crucible.trajectory;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Map;

/**
 * One line of a trajectory segment. {@code seq} counts from 1 in the order events were stored; {@code time} is
 * RFC 3339 (when it was recorded); {@code kind} one of {@link EventKind}; {@code step} the interactive step index
 * it belongs to (null in embedded mode); {@code cause} the seq of the event it follows from (a finding's file
 * change, a process end's start, a file change's process); {@code data} the kind's fields (see the README).
 * A string too long to keep inline is a blob reference instead: {@code {"blob": "sha256:…", "bytes": n, "head": "…"}}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"seq", "time", "kind", "step", "cause", "data"})
public record TraceEvent(long seq, String time, String kind, Integer step, Long cause, Map<String, Object> data) {
    public TraceEvent {
        data = data == null ? Map.of() : data;
    }

    /** A field of {@code data} as text (a blob reference shows its head), or null. */
    public String text(String field) {
        Object v = data.get(field);
        if (v == null) return null;
        if (v instanceof Map<?, ?> m && m.get("blob") != null) return m.get("head") + "… [" + m.get("bytes") + " bytes in " + m.get("blob") + "]";
        return String.valueOf(v);
    }
}
