package dev.crucible.trajectory;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Reads a trajectory folder's segments in order, one event at a time (memory does not grow with the trajectory).
 * Nothing here trusts the folder: a segment that is not a regular file or is larger than any the recorder writes is
 * refused, a line longer than {@link #MAX_LINE_BYTES} or not an event is reported with its file and line and skipped,
 * and a last line without its newline (a write cut short by a crash or a full disk) is reported as torn.
 */
public final class TrajectoryReader {
    /** Larger than any segment {@link RecorderLimits} allow (8 MiB by default) with room for a custom limit. */
    public static final long MAX_SEGMENT_BYTES = 256L << 20;
    public static final int MAX_LINE_BYTES = 1 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private TrajectoryReader() {}

    /** The segment files of {@code dir}, in order; throws naming the folder when it holds none. */
    public static List<Path> segments(Path dir) throws IOException {
        Path segs = dir.resolve(TrajectoryRecorder.SEGMENTS);
        if (!Files.isDirectory(segs, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " holds no trajectory (no " + TrajectoryRecorder.SEGMENTS + "/ folder)");
        }
        try (var s = Files.list(segs)) {
            return s.filter(p -> p.getFileName().toString().matches("\\d{6}\\.jsonl")).sorted().toList();
        }
    }

    /**
     * Hands every readable event to {@code events} in order; each problem (a refused segment, a malformed or torn
     * line) goes to {@code problems} with its file and line, and reading goes on with the next line or segment.
     */
    public static void read(Path dir, Consumer<TraceEvent> events, Consumer<String> problems) throws IOException {
        for (Path seg : segments(dir)) readSegment(seg, events, problems);
    }

    /** One segment file, as {@link #read} reads each (the console reads only the segments a page or a step falls in). */
    public static void readSegment(Path seg, Consumer<TraceEvent> events, Consumer<String> problems) throws IOException {
        readSegmentWhile(seg, e -> {
            events.accept(e);
            return true;
        }, problems);
    }

    /**
     * One segment file until {@code more} answers false for an event (a page that has its rows stops there: a first
     * screen parses its 200 events, not the segment's 10,000).
     */
    public static void readSegmentWhile(Path seg, Predicate<TraceEvent> more, Consumer<String> problems) throws IOException {
        if (!Files.isRegularFile(seg, LinkOption.NOFOLLOW_LINKS)) {
            problems.accept(seg + ": not a regular file, not read");
            return;
        }
        long size = Files.size(seg);
        if (size > MAX_SEGMENT_BYTES) {
            problems.accept(seg + ": segment too large (" + size + " bytes, at most " + MAX_SEGMENT_BYTES + "), not read");
            return;
        }
        try (InputStream in = Files.newInputStream(seg, LinkOption.NOFOLLOW_LINKS)) {
            // chunks scanned for newlines: a byte at a time through a stream costs a call per byte
            byte[] buf = new byte[64 << 10];
            ByteArrayOutputStream line = new ByteArrayOutputStream(512);
            long lineNo = 1;
            boolean tooLong = false;
            int n;
            while ((n = in.read(buf)) > 0) {
                int from = 0;
                for (int i = 0; i < n; i++) {
                    if (buf[i] != '\n') continue;
                    tooLong = append(line, buf, from, i - from, tooLong);
                    from = i + 1;
                    boolean go = true;
                    if (tooLong) problems.accept(seg + ":" + lineNo + ": line longer than " + MAX_LINE_BYTES + " bytes, skipped");
                    else go = parse(seg, lineNo, line.toByteArray(), more, problems);
                    line.reset();
                    tooLong = false;
                    lineNo++;
                    if (!go) return;
                }
                tooLong = append(line, buf, from, n - from, tooLong);
            }
            if (line.size() > 0 || tooLong) problems.accept(seg + ":" + lineNo + ": torn last line (" + line.size() + " bytes without a newline), skipped");
        }
    }

    /** Adds up to the line limit; true once the line went past it. */
    private static boolean append(ByteArrayOutputStream line, byte[] buf, int off, int len, boolean tooLong) {
        int room = MAX_LINE_BYTES - line.size();
        if (len > room) {
            line.write(buf, off, Math.max(0, room));
            return true;
        }
        line.write(buf, off, len);
        return tooLong;
    }

    /** False when {@code more} asked to stop. */
    private static boolean parse(Path seg, long lineNo, byte[] line, Predicate<TraceEvent> more, Consumer<String> problems) {
        if (line.length == 0) return true;
        TraceEvent e;
        try {
            e = JSON.readValue(line, TraceEvent.class);
        } catch (IOException | RuntimeException ex) {
            problems.accept(seg + ":" + lineNo + ": malformed event, skipped: " + firstLine(ex.getMessage()));
            return true;
        }
        if (e.kind() == null || e.seq() < 1 || e.time() == null) {
            problems.accept(seg + ":" + lineNo + ": not an event (seq, time and kind are required), skipped");
            return true;
        }
        return more.test(e); // outside the try: the caller's own error is not a malformed line
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
