package dev.crucible.verifier.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TrajectoryReader;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which process a file change is attributed to. Start times come in 10 ms ticks, so a command a shell starts right after
 * writing a file (the demo hacker's {@code sed} after its {@code cat > conftest.py}) can look alive at the write: a
 * process that surely started before the write wins over one in the write's tick.
 */
class WriterAttributionTest {

    @Test
    void aProcessSurelyStartedBeforeTheWriteWinsOverOneStartedInItsTick(@TempDir Path dir) throws Exception {
        Instant write = Instant.parse("2026-11-30T00:00:00.500Z");
        RolloutTrace trace = new RolloutTrace(TrajectoryRecorder.open(dir, RecorderLimits.defaults()), false);
        trace.processSeen(100, 1, "sh hacker.sh", "/w", write.minusSeconds(2), true);
        trace.processSeen(101, 100, "python3 helper.py", "/w", write.minusMillis(300), false);
        trace.processSeen(102, 100, "sed -i s/x/y/ tests/t.py", "/w", write.plusMillis(3), false);
        trace.fileChanged("conftest.py", "added", "file", 10, write, null, null);
        // only the ambiguous one and a process that ended before the write
        trace.processGone(101);
        trace.fileChanged("late.py", "added", "file", 10, write.plusSeconds(5), null, null);
        trace.recorder().close();

        List<TraceEvent> all = new ArrayList<>();
        TrajectoryReader.read(dir, all::add, p -> { });
        assertThat(writer(all, "conftest.py")).as("the latest process surely alive at the write").isEqualTo("python3 helper.py");
        assertThat(writer(all, "late.py")).isIn("sh hacker.sh", "sed -i s/x/y/ tests/t.py");
    }

    private static String writer(List<TraceEvent> all, String path) {
        TraceEvent f = all.stream().filter(e -> EventKind.FILE.equals(e.kind()) && path.equals(e.text("path"))).findFirst().orElseThrow();
        return all.stream().filter(e -> e.seq() == f.cause()).findFirst().orElseThrow().text("command");
    }
}
