package dev.crucible.trajectory;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Appends one rollout's events to JSON Lines segments ({@code segments/000001.jsonl}, …), each created new and only
 * ever appended to; long strings and file contents go to {@link BlobStore}. What it keeps in memory is a few
 * counters and the open segment's buffer, whatever the length of the run. It never throws at its caller: a write
 * that fails (a full disk) or the cap is recorded as a problem, later events are counted as dropped, and
 * {@link #status()} says the trajectory is incomplete, while the rollout goes on.
 */
public final class TrajectoryRecorder implements AutoCloseable {
    public static final String SEGMENTS = "segments";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Kept free under the cap for the cap event and the summary at the end. */
    private static final long RESERVE = 32 << 10;
    private static final long FLUSH_NANOS = 1_000_000_000L;
    private static final long RETRY_NANOS = 2_000_000_000L;
    private static final int HEAD_CHARS = 200;
    private static final int MAX_PROBLEMS = 16;

    private final Path dir;
    private final RecorderLimits limits;
    private final BlobStore blobs;
    private OutputStream segment;
    private OutputStream raw; // the segment's file: closed directly after a failure, so the buffer is not written twice
    private int segmentIndex;
    private int segmentEvents;
    private long segmentBytes;
    private long seq;
    private long stored;
    private boolean capped;
    private boolean closed;
    private long lastFlush = System.nanoTime();
    private long retryAt;
    private long lost; // events not stored because a write failed
    private final Map<String, Long> dropped = new TreeMap<>(); // by kind, past the cap
    private final List<String> problems = new ArrayList<>();
    /** One daemon thread for every recorder in the process: what is buffered reaches the segment within a second, even when the run is quiet. */
    private static final java.util.concurrent.ScheduledExecutorService FLUSHER = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "crucible-trajectory-flush");
        t.setDaemon(true);
        return t;
    });
    private java.util.concurrent.ScheduledFuture<?> flushing;

    private TrajectoryRecorder(Path dir, RecorderLimits limits) {
        this.dir = dir;
        this.limits = limits;
        this.blobs = new BlobStore(dir);
    }

    /** A recorder writing under {@code dir}; when the folder cannot be made, one that stores nothing and says why. */
    /** What this trajectory may take (its cap bounds the stored ATIF document too). */
    public RecorderLimits limits() { return limits; }

    public static TrajectoryRecorder open(Path dir, RecorderLimits limits) {
        TrajectoryRecorder r = new TrajectoryRecorder(dir, limits);
        try {
            Files.createDirectories(dir.resolve(SEGMENTS));
            try (var s = Files.list(dir.resolve(SEGMENTS))) { // a continued rollout (restored) appends new segments after the old
                r.segmentIndex = s.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d{6}\\.jsonl"))
                        .mapToInt(n -> Integer.parseInt(n.substring(0, 6))).max().orElse(0);
            }
        } catch (IOException | RuntimeException e) {
            r.problem("cannot create " + dir.resolve(SEGMENTS) + ": " + e);
            r.retryAt = Long.MAX_VALUE;
        }
        r.flushing = FLUSHER.scheduleWithFixedDelay(r::flush, 1, 1, java.util.concurrent.TimeUnit.SECONDS);
        return r;
    }

    public Path dir() { return dir; }

    public BlobStore blobs() { return blobs; }

    /** Stores one event; its seq, or -1 when it was not stored (cap, write failure, closed). */
    public synchronized long append(String kind, Integer step, Long cause, Map<String, Object> data) {
        if (closed) return -1;
        if (capped) return drop(kind);
        byte[] line;
        try {
            line = line(new TraceEvent(seq + 1, Instant.now().toString(), kind, step, cause, inline(data == null ? Map.of() : data, 0)));
        } catch (IllegalArgumentException e) {
            problem(e.getMessage());
            return drop(kind);
        }
        if (line.length > limits.maxEventBytes()) { // e.g. thousands of short fields: the whole event becomes a blob
            String ref = blob(line);
            Map<String, Object> big = new LinkedHashMap<>();
            big.put("oversize", line.length);
            if (ref != null) big.put("event", ref);
            line = line(new TraceEvent(seq + 1, Instant.now().toString(), kind, step, cause, big));
        }
        if (stored + line.length > limits.capBytes() - RESERVE) {
            capped = true;
            Map<String, Object> note = new LinkedHashMap<>();
            note.put("capBytes", limits.capBytes());
            note.put("message", "per-rollout trajectory cap of " + limits.capBytes() + " bytes reached: later events are counted, not stored");
            write(line(new TraceEvent(seq + 1, Instant.now().toString(), EventKind.CAP, null, null, note)), true);
            return drop(kind);
        }
        return write(line, false) ? seq : -1;
    }

    /** Stores {@code content} as a blob; its reference, or null when it was not stored (cap, write failure). */
    public synchronized String blob(byte[] content) {
        String ref = BlobStore.ref(content);
        if (closed || capped || stored + content.length > limits.capBytes() - RESERVE) {
            dropped.merge("blob", 1L, Long::sum);
            return null;
        }
        try {
            stored += blobs.put(ref, content);
            return ref;
        } catch (IOException | RuntimeException e) {
            problem("blob " + ref + " not written: " + e);
            return null;
        }
    }

    /** A problem the caller met (a malformed handed-in trajectory): recorded, and the trajectory counts as incomplete. */
    public synchronized void problem(String message) {
        if (problems.size() < MAX_PROBLEMS) problems.add(message);
        else if (problems.size() == MAX_PROBLEMS) problems.add("… further problems not listed");
    }

    /** Writes what is buffered to the segment (a shared timer calls this every second). */
    public synchronized void flush() {
        if (segment == null) return;
        try {
            segment.flush();
        } catch (IOException e) {
            failed(e);
        }
        lastFlush = System.nanoTime();
    }

    private volatile long exportBytes;

    /** The stored ATIF document's size, once written beside the segments (TrajectoryStatus.exportBytes). */
    public void exported(long bytes) { exportBytes = bytes; }

    public synchronized TrajectoryStatus status() {
        long droppedAll = dropped.values().stream().mapToLong(Long::longValue).sum();
        return new TrajectoryStatus(dir.toString(), seq - lost, stored, exportBytes, capped, lost, Map.copyOf(dropped), List.copyOf(problems),
                !capped && lost == 0 && droppedAll == 0 && problems.isEmpty());
    }

    /** Appends the summary (in the reserve kept under the cap) and closes the segment. */
    @Override
    public synchronized void close() {
        if (closed) return;
        if (flushing != null) flushing.cancel(false);
        TrajectoryStatus s = status();
        Map<String, Object> end = new LinkedHashMap<>();
        end.put("events", s.events());
        end.put("bytes", s.bytes());
        end.put("complete", s.complete());
        if (!s.dropped().isEmpty()) end.put("dropped", s.dropped());
        if (s.lost() > 0) end.put("lost", s.lost());
        if (!s.problems().isEmpty()) end.put("problems", s.problems());
        write(line(new TraceEvent(seq + 1, Instant.now().toString(), EventKind.END, null, null, end)), true);
        closed = true;
        if (segment != null) {
            try {
                segment.close();
            } catch (IOException e) {
                problem("closing the last segment: " + e);
            }
            segment = null;
        }
    }

    private long drop(String kind) {
        dropped.merge(kind, 1L, Long::sum);
        return -1;
    }

    private boolean write(byte[] line, boolean reserved) {
        seq++;
        if (segment == null && System.nanoTime() - retryAt < 0) {
            lost++;
            return false;
        }
        try {
            if (segment == null || segmentEvents >= limits.segmentEvents() || segmentBytes + line.length > limits.segmentBytes()) nextSegment();
            segment.write(line);
            segmentEvents++;
            segmentBytes += line.length;
            stored += line.length;
            if (System.nanoTime() - lastFlush > FLUSH_NANOS) {
                segment.flush();
                lastFlush = System.nanoTime();
            }
            return true;
        } catch (IOException | RuntimeException e) {
            lost++;
            failed(e);
            return false;
        }
    }

    /** A failed write leaves the segment's end unknown: it is closed (a reader skips a torn last line) and a new one is tried later. */
    private void failed(Exception e) {
        problem("segment " + String.format("%06d.jsonl", segmentIndex) + ": " + e.getMessage() + " (" + e.getClass().getSimpleName() + ")");
        if (raw != null) {
            try {
                raw.close();
            } catch (IOException ignored) {
                // its end is lost either way
            }
        }
        segment = null;
        raw = null;
        retryAt = System.nanoTime() + RETRY_NANOS;
    }

    private void nextSegment() throws IOException {
        if (segment != null) segment.close();
        segment = null;
        segmentIndex++;
        Path p = dir.resolve(SEGMENTS).resolve(String.format("%06d.jsonl", segmentIndex));
        raw = Files.newOutputStream(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        segment = new BufferedOutputStream(raw, 64 << 10);
        segmentEvents = 0;
        segmentBytes = 0;
    }

    /** {@code data} with every string longer than the inline limit replaced by a blob reference (its head kept for reading). */
    private Map<String, Object> inline(Map<String, Object> data, int depth) {
        if (!needsBlob(data.values(), depth)) return data; // the common case: nothing long, nothing copied
        Map<String, Object> out = new LinkedHashMap<>();
        data.forEach((k, v) -> out.put(k, inlineValue(v, depth)));
        return out;
    }

    private boolean needsBlob(java.util.Collection<?> values, int depth) {
        for (Object v : values) {
            if (v instanceof String x && x.length() > limits.inlineBytes() / 4) return true;
            if (depth < 4 && v instanceof Map<?, ?> m && needsBlob(m.values(), depth + 1)) return true;
            if (depth < 4 && v instanceof List<?> l && needsBlob(l, depth + 1)) return true;
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private Object inlineValue(Object v, int depth) {
        if (v instanceof String s && s.length() > limits.inlineBytes() / 4) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            if (b.length <= limits.inlineBytes()) return s;
            Map<String, Object> ref = new LinkedHashMap<>();
            String r = blob(b);
            ref.put("blob", r == null ? "dropped" : r);
            ref.put("bytes", b.length);
            ref.put("head", s.substring(0, Math.min(HEAD_CHARS, s.length())));
            return ref;
        }
        if (depth < 4 && v instanceof Map<?, ?> m) return inline((Map<String, Object>) m, depth + 1);
        if (depth < 4 && v instanceof List<?> l) return l.stream().map(x -> inlineValue(x, depth + 1)).toList();
        return v;
    }

    private static byte[] line(TraceEvent e) {
        try {
            byte[] b = JSON.writeValueAsBytes(e);
            byte[] withNl = java.util.Arrays.copyOf(b, b.length + 1);
            withNl[b.length] = '\n';
            return withNl;
        } catch (IOException ex) {
            throw new IllegalArgumentException("event of kind " + e.kind() + " cannot be written as JSON: " + ex.getMessage(), ex);
        }
    }
}
