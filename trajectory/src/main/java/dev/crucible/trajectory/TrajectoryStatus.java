package dev.crucible.trajectory;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/**
 * What a recorder stored, for result.json: {@code complete} is false when the cap was reached, a write failed
 * ({@code lost} events), something was {@code dropped} (by kind) or a {@code problem} was met (a malformed
 * handed-in trajectory, a full disk); the run itself goes on in every case. {@code bytes} is what the segments and blobs
 * take, {@code exportBytes} the ATIF document written beside them at the end (0 before it is): the folder holds both, and
 * both stay within the cap (host round 7: the document, uncounted, was 2.2x the accounted bytes).
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"dir", "complete", "events", "bytes", "exportBytes", "capped", "lost", "dropped", "problems"})
public record TrajectoryStatus(String dir, long events, long bytes, long exportBytes, boolean capped, long lost, Map<String, Long> dropped,
                               List<String> problems, boolean complete) {
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public boolean complete() { return complete; }
}
