package dev.crucible.verifier.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TrajectoryReader;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File contents the trajectory keeps are copies of the agent's files on the host, outside the attempt's disk
 * limit, so a rollout keeps at most {@link RolloutTrace#CONTENT_BUDGET} of them: past it a change is still
 * recorded (path, size, hash) with a note, never its bytes. Without the bound, 20,000 agent files of 64 KiB
 * put 900 MiB on the host past a 1 GiB limit (DiskLimitAttacksTest many-files).
 */
class ContentBudgetTest {
    @Test
    void filesPastTheBudgetAreRecordedWithoutTheirBytes(@TempDir Path dir) throws Exception {
        TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults());
        RolloutTrace trace = new RolloutTrace(rec, false);
        Random random = new Random(1);
        int files = (int) (RolloutTrace.CONTENT_BUDGET / (1 << 20)) * 2; // twice the budget, 1 MiB each
        for (int i = 0; i < files; i++) {
            byte[] content = new byte[1 << 20];
            random.nextBytes(content);
            trace.fileChanged("f" + i, "added", "file", content.length, Instant.now(), "00", content);
        }
        rec.close();
        long blobBytes;
        try (Stream<Path> s = Files.walk(dir.resolve("blobs"))) {
            blobBytes = s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
        assertThat(blobBytes).as("bytes of file contents kept on the host").isLessThanOrEqualTo(RolloutTrace.CONTENT_BUDGET);
        List<TraceEvent> events = new ArrayList<>();
        TrajectoryReader.read(dir, events::add, p -> { });
        List<TraceEvent> fileEvents = events.stream().filter(e -> EventKind.FILE.equals(e.kind())).toList();
        assertThat(fileEvents).as("every change is still on the timeline").hasSize(files);
        assertThat(fileEvents.get(files - 1).text("contentNote")).contains("not kept");
        assertThat(fileEvents.get(0).data()).containsKey("content");
    }
}
