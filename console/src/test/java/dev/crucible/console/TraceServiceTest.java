package dev.crucible.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.console.trace.EventDetail;
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
}
