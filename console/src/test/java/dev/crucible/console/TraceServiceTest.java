package dev.crucible.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.console.trace.EventDetail;
import dev.crucible.console.trace.SegmentIndex;
import dev.crucible.console.trace.TracePage;
import dev.crucible.console.trace.TraceService;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A finding's cause chain when its cause is far back (past the events one pass keeps) and across segments. */
class TraceServiceTest {

    @Test
    void aCauseFarBackInAnotherSegmentIsStillFound(@TempDir Path attempt) {
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(attempt.resolve("trajectory"), RecorderLimits.defaults().withSegment(1000, 8L << 20))) {
            long proc = rec.append(EventKind.PROCESS_START, null, null, Map.of("pid", 7, "command", "sh hack.sh"));
            for (int i = 0; i < 5000; i++) rec.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", "line " + i));
            long change = rec.append(EventKind.FILE, null, proc, Map.of("path", "conftest.py", "op", "added", "diff", "+++ b/conftest.py\n+x\n"));
            rec.append(EventKind.FINDING, null, change, Map.of("detector", "startup-hook-injection", "severity", "critical", "path", "conftest.py"));
        }
        EventDetail f = TraceService.event(attempt, "a", 5003);
        assertThat(f.kind()).isEqualTo("finding");
        assertThat(f.causes()).extracting(EventDetail.Link::seq).containsExactly(5002L, 1L);
        assertThat(f.causes().get(1).summary()).contains("sh hack.sh");
        assertThat(f.events()).isEqualTo(5004);
        assertThat(TraceService.page(attempt, "a", 4990, 20, java.util.List.of()).rows().stream()
                .filter(r -> r.seq() == 5002).findFirst().orElseThrow().findings()).containsExactly(5003L);
    }

    @Test
    void aStepLateInALongTraceReadsOnlyTheSegmentsAroundItOnceTheTraceIsIndexed(@TempDir Path attempt) {
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(attempt.resolve("trajectory"), RecorderLimits.defaults().withSegment(500, 8L << 20))) {
            long proc = rec.append(EventKind.PROCESS_START, null, null, Map.of("pid", 7, "command", "sh long.sh"));
            for (int i = 0; i < 9_997; i++) rec.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", "line " + i));
            long change = rec.append(EventKind.FILE, null, proc, Map.of("path", "conftest.py", "op", "added", "diff", "+++ b/conftest.py\n+x\n"));
            rec.append(EventKind.FINDING, null, change, Map.of("detector", "startup-hook-injection", "severity", "critical", "path", "conftest.py"));
        }
        long segments = attempt.resolve("trajectory/segments").toFile().list().length;
        assertThat(segments).isGreaterThanOrEqualTo(20);
        TracePage first = TraceService.page(attempt, "a", 1, 200, java.util.List.of()); // the first paint indexes the segments
        assertThat(first.events()).isEqualTo(10_001); // and the recorder's own last event
        assertThat(first.rows()).hasSize(200);
        assertThat(first.findings()).extracting(TracePage.FindingRef::at).containsExactly(9_999L);
        long before = SegmentIndex.reads();
        EventDetail f = TraceService.event(attempt, "a", 10_000);
        assertThat(f.kind()).isEqualTo("finding");
        assertThat(f.causes()).extracting(EventDetail.Link::seq).containsExactly(9_999L, 1L); // #1: the first segment, by the index
        assertThat(SegmentIndex.reads() - before).as("segments read for a step at the end").isLessThanOrEqualTo(4); // before, its own, after, #1's
        before = SegmentIndex.reads();
        TracePage late = TraceService.page(attempt, "a", 9_900, 200, java.util.List.of());
        assertThat(late.rows()).extracting(TracePage.Row::seq).startsWith(9_900L).endsWith(10_001L);
        assertThat(late.rows().stream().filter(r -> r.seq() == 9_999).findFirst().orElseThrow().findings()).containsExactly(10_000L);
        assertThat(SegmentIndex.reads() - before).as("segments read for a page at the end").isLessThanOrEqualTo(2);
    }
}
