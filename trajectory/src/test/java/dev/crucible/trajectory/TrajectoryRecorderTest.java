package dev.crucible.trajectory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrajectoryRecorderTest {
    private static final RecorderLimits SMALL = RecorderLimits.defaults().withSegment(100, 64 << 10);

    @Test
    void appendsInSegmentsThatAreNeverRewrittenAndReadsThemBackInOrder(@TempDir Path dir) throws Exception {
        List<byte[]> firstSegmentSnapshots = new ArrayList<>();
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir, SMALL)) {
            for (int i = 0; i < 1000; i++) {
                assertThat(r.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", "line " + i))).isEqualTo(i + 1);
                if (i == 150 || i == 999) {
                    r.flush();
                    firstSegmentSnapshots.add(Files.readAllBytes(dir.resolve("segments/000001.jsonl")));
                }
            }
        }
        assertThat(TrajectoryReader.segments(dir)).hasSize(11); // 1000 events and the summary, 100 a segment
        assertThat(firstSegmentSnapshots.get(1)).isEqualTo(firstSegmentSnapshots.get(0)); // closed at 100 events, never touched again
        List<TraceEvent> events = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TrajectoryReader.read(dir, events::add, problems::add);
        assertThat(problems).isEmpty();
        assertThat(events).hasSize(1001);
        for (int i = 0; i < 1000; i++) assertThat(events.get(i).text("text")).isEqualTo("line " + i);
        TraceEvent end = events.get(1000);
        assertThat(end.kind()).isEqualTo(EventKind.END);
        assertThat(end.data()).containsEntry("complete", true).containsEntry("events", 1000);
    }

    @Test
    void longOutputGoesToAContentAddressedBlobReferencedFromTheEvent(@TempDir Path dir) throws Exception {
        String big = "x".repeat(100_000);
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir, SMALL)) {
            r.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", big));
            r.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", big)); // the same content: one blob
        }
        List<TraceEvent> events = new ArrayList<>();
        TrajectoryReader.read(dir, events::add, p -> { });
        @SuppressWarnings("unchecked")
        Map<String, Object> ref = (Map<String, Object>) events.get(0).data().get("text");
        String blob = (String) ref.get("blob");
        assertThat(blob).isEqualTo(BlobStore.ref(big.getBytes(StandardCharsets.UTF_8)));
        assertThat(ref.get("bytes")).isEqualTo(100_000);
        assertThat(new String(new BlobStore(dir).read(blob, 1 << 20), StandardCharsets.UTF_8)).isEqualTo(big);
        try (var s = Files.walk(dir.resolve("blobs"))) {
            assertThat(s.filter(Files::isRegularFile).count()).isEqualTo(1);
        }
        assertThat(Files.size(dir.resolve("segments/000001.jsonl"))).isLessThan(2000); // the segment holds references only
    }

    @Test
    void pastTheCapItRecordsThatTheCapWasHitAndWhatWasDropped(@TempDir Path dir) throws Exception {
        TrajectoryStatus status;
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir, SMALL.withCap(128 << 10))) {
            for (int i = 0; i < 5000; i++) r.append(i % 2 == 0 ? EventKind.OUTPUT : EventKind.FILE, null, null, Map.of("text", "event number " + i));
            status = r.status();
        }
        assertThat(status.complete()).isFalse();
        assertThat(status.capped()).isTrue();
        assertThat(status.dropped().get(EventKind.OUTPUT) + status.dropped().get(EventKind.FILE)).isEqualTo(5000 - status.events() + 1);
        long onDisk;
        try (var s = Files.walk(dir)) {
            onDisk = s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
        assertThat(onDisk).isLessThanOrEqualTo(128 << 10);
        List<TraceEvent> events = new ArrayList<>();
        TrajectoryReader.read(dir, events::add, p -> { });
        assertThat(events).extracting(TraceEvent::kind).contains(EventKind.CAP).endsWith(EventKind.END);
        TraceEvent end = events.get(events.size() - 1);
        assertThat(end.data()).containsEntry("complete", false).containsKey("dropped");
    }

    @Test
    void anEventTooLargeForALineIsStoredAsABlobAndTheSegmentStaysBounded(@TempDir Path dir) throws Exception {
        Map<String, Object> many = new LinkedHashMap<>();
        for (int i = 0; i < 20_000; i++) many.put("field" + i, "v" + i);
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir, SMALL)) {
            assertThat(r.append(EventKind.STEP, 1, null, many)).isEqualTo(1);
        }
        List<TraceEvent> events = new ArrayList<>();
        TrajectoryReader.read(dir, events::add, p -> { });
        assertThat(events.get(0).data()).containsKey("oversize");
        String ref = (String) events.get(0).data().get("event");
        assertThat(new String(new BlobStore(dir).read(ref, 4 << 20), StandardCharsets.UTF_8)).contains("\"field19999\":\"v19999\"");
    }

    @Test
    void aReaderNamesMalformedTornAndTooLargeSegmentsAndGoesOn(@TempDir Path dir) throws Exception {
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir, SMALL)) {
            r.append(EventKind.OUTPUT, null, null, Map.of("text", "kept"));
        }
        Files.writeString(dir.resolve("segments/000002.jsonl"), "{\"seq\":3,\"time\":\"t\",\"kind\":\"output\",\"data\":{\"text\":\"after\"}}\nnot json\n{\"seq\":5,");
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve("segments/000003.jsonl").toFile(), "rw")) {
            f.setLength(TrajectoryReader.MAX_SEGMENT_BYTES + 1); // sparse: costs no disk
        }
        List<TraceEvent> events = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TrajectoryReader.read(dir, events::add, problems::add);
        assertThat(events).extracting(e -> e.text("text")).containsExactly("kept", null, "after");
        assertThat(problems).hasSize(3);
        assertThat(problems.get(0)).contains("000002.jsonl:2: malformed event");
        assertThat(problems.get(1)).contains("000002.jsonl:3: torn last line");
        assertThat(problems.get(2)).contains("000003.jsonl: segment too large");
    }

    @Test
    void aTextChangeGetsABoundedUnifiedDiff() {
        String diff = TextDiff.unified("conftest.py", null, "import pytest\nx = 1\n");
        assertThat(diff).contains("--- /dev/null", "+++ b/conftest.py", "+import pytest");
        assertThat(TextDiff.text(new byte[] {'a', 0, 'b'})).isNull();
        assertThat(TextDiff.unified("big.txt", "a\n".repeat(10), "b\n".repeat(6000))).isNull();
        String cut = TextDiff.unified("wide.txt", "", "y".repeat(200) + "\n" + ("z".repeat(100) + "\n").repeat(1000));
        assertThat(cut.length()).isLessThan(TextDiff.MAX_DIFF_CHARS + 100);
        assertThat(cut).endsWith("characters]\n");
    }
}
