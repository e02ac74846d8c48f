package dev.crucible.trajectory;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reader scans a segment in 64 KiB chunks: lines across chunk edges, an over-long line, and stopping early. */
class SegmentChunksTest {
    private static String event(long seq, int textBytes) {
        return "{\"seq\":" + seq + ",\"time\":\"2026-12-01T00:00:00Z\",\"kind\":\"output\",\"data\":{\"text\":\"" + "x".repeat(textBytes) + "\"}}\n";
    }

    @Test
    void linesAcrossChunkEdgesAndAnOverLongLineReadAsBefore(@TempDir Path dir) throws Exception {
        StringBuilder b = new StringBuilder();
        int[] sizes = {65_400, 200, 131_000, 1, 70_000};
        for (int i = 0; i < sizes.length; i++) b.append(event(i + 1, sizes[i]));
        b.append(event(6, TrajectoryReader.MAX_LINE_BYTES + 70_000)); // over the line limit, and over several chunks
        b.append(event(7, 10)).append("{\"seq\":8,");
        Path seg = dir.resolve("000001.jsonl");
        Files.writeString(seg, b, StandardCharsets.UTF_8);
        List<TraceEvent> events = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TrajectoryReader.readSegment(seg, events::add, problems::add);
        assertThat(events).extracting(TraceEvent::seq).containsExactly(1L, 2L, 3L, 4L, 5L, 7L);
        for (int i = 0; i < sizes.length; i++) assertThat(events.get(i).text("text")).hasSize(sizes[i]);
        assertThat(problems).hasSize(2);
        assertThat(problems.get(0)).contains("000001.jsonl:6: line longer than");
        assertThat(problems.get(1)).contains("000001.jsonl:8: torn last line (9 bytes");
    }

    @Test
    void aReaderThatHasWhatItNeedsStopsThere(@TempDir Path dir) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= 1000; i++) b.append(event(i, 100));
        b.append("not json\n");
        Path seg = dir.resolve("000001.jsonl");
        Files.writeString(seg, b, StandardCharsets.UTF_8);
        List<Long> seen = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TrajectoryReader.readSegmentWhile(seg, e -> {
            seen.add(e.seq());
            return seen.size() < 3;
        }, problems::add);
        assertThat(seen).containsExactly(1L, 2L, 3L);
        assertThat(problems).as("the malformed line after the stop is never reached").isEmpty();
    }
}
