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
 * Which process a file change is attributed to when no sampled process looks alive at the write: the agent's root.
 */
class WriterAttributionTest {

    @Test
    void aWriteBeforeAnyProcessIsKnownGoesToTheAgentsRoot(@TempDir Path dir) throws Exception {
        // a quiet machine: the demo hacker wrote conftest.py in its first milliseconds, and the root's recorded start
        // (10 ms ticks from an estimated boot time) came out later than the file's coarse mtime
        Instant write = Instant.parse("2026-11-30T00:00:00.500Z");
        RolloutTrace trace = new RolloutTrace(TrajectoryRecorder.open(dir, RecorderLimits.defaults()), true);
        trace.processSeen(200, 1, "bwrap … sh hacker.sh", "/w", write.plusMillis(40), true);
        trace.fileChanged("conftest.py", "added", "file", 10, write, null, null);
        trace.recorder().close();
        List<TraceEvent> all = new ArrayList<>();
        TrajectoryReader.read(dir, all::add, p -> { });
        assertThat(writer(all, "conftest.py")).isEqualTo("bwrap … sh hacker.sh");
    }

    private static String writer(List<TraceEvent> all, String path) {
        TraceEvent f = all.stream().filter(e -> EventKind.FILE.equals(e.kind()) && path.equals(e.text("path"))).findFirst().orElseThrow();
        return all.stream().filter(e -> e.seq() == f.cause()).findFirst().orElseThrow().text("command");
    }
}
