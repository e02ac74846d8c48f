package dev.crucible.console.trace;

import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TrajectoryReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * seq → segment for a long trajectory: one digest per segment file (its first and last event number, how many events of
 * each kind, its findings and where each began, the problems reading it), kept in memory and reused while the file's
 * size and time are unchanged. The recorder only appends, and a full segment is never written again, so a trajectory
 * is read whole once; after that the trace view reads only the segments a page or a step falls in, not every segment
 * from the start (a growing last segment is read again when it grows). Bounded: at most {@link #MAX_CACHED} digests
 * holding at most {@link #MAX_CACHED_FINDINGS} findings in all (the cluster console's per-request copies included), the
 * least recently used dropped first.
 */
public final class SegmentIndex {
    static final int MAX_CACHED = 4096;
    static final int MAX_CACHED_FINDINGS = 100_000;
    private static long cachedFindings;
    private static final java.util.concurrent.atomic.AtomicLong READS = new java.util.concurrent.atomic.AtomicLong();

    record Digest(Path file, long size, FileTime modified, long firstSeq, long lastSeq, long events, Map<String, Long> kinds,
                  List<TracePage.FindingRef> findings, int findingsLeftOut, List<String> problems) {
        boolean holds(long seq) { return events > 0 && firstSeq <= seq && seq <= lastSeq; }
    }

    private static final Map<Path, Digest> CACHE = new LinkedHashMap<>(256, 0.75f, true);

    private SegmentIndex() {}

    /** Segment files read whole since start (a digest made or a page's or step's segment read): what the tests count. */
    public static long reads() { return READS.get(); }

    /** The digests of {@code dir}'s segments, in order; a segment read for the first time (or changed) is read now. */
    static List<Digest> of(Path dir) throws IOException {
        List<Digest> out = new ArrayList<>();
        for (Path seg : TrajectoryReader.segments(dir)) out.add(digest(seg));
        return out;
    }

    /** Events of one segment, in order (its problems are in its digest, not repeated). */
    static void read(Digest d, Consumer<dev.crucible.trajectory.TraceEvent> events) throws IOException {
        READS.incrementAndGet();
        TrajectoryReader.readSegment(d.file(), events, p -> { });
    }

    /** Events of one segment until {@code more} answers false. */
    static void readWhile(Digest d, java.util.function.Predicate<dev.crucible.trajectory.TraceEvent> more) throws IOException {
        READS.incrementAndGet();
        TrajectoryReader.readSegmentWhile(d.file(), more, p -> { });
    }

    private static Digest digest(Path seg) throws IOException {
        BasicFileAttributes a = Files.readAttributes(seg, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        synchronized (CACHE) {
            Digest d = CACHE.get(seg);
            if (d != null && d.size() == a.size() && d.modified().equals(a.lastModifiedTime())) return d;
        }
        long[] n = {0, Long.MAX_VALUE, 0, 0}; // events, first, last, findings left out
        Map<String, Long> kinds = new TreeMap<>();
        List<TracePage.FindingRef> findings = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        READS.incrementAndGet();
        TrajectoryReader.readSegment(seg, e -> {
            n[0]++;
            n[1] = Math.min(n[1], e.seq());
            n[2] = Math.max(n[2], e.seq());
            kinds.merge(e.kind(), 1L, Long::sum);
            if (EventKind.FINDING.equals(e.kind())) {
                long at = e.cause() != null && e.cause() < e.seq() ? e.cause() : e.seq();
                if (findings.size() < TraceService.MAX_FINDINGS) {
                    findings.add(new TracePage.FindingRef(e.seq(), at, e.text("detector"), e.text("rule"), e.text("severity"), e.text("path")));
                } else n[3]++;
            }
        }, problems::add);
        Digest d = new Digest(seg, a.size(), a.lastModifiedTime(), n[0] == 0 ? 0 : n[1], n[2], n[0], Map.copyOf(kinds), List.copyOf(findings),
                (int) n[3], List.copyOf(problems));
        synchronized (CACHE) {
            Digest old = CACHE.put(seg, d);
            cachedFindings += d.findings().size() - (old == null ? 0 : old.findings().size());
            var eldest = CACHE.values().iterator();
            while ((CACHE.size() > MAX_CACHED || cachedFindings > MAX_CACHED_FINDINGS) && eldest.hasNext()) {
                Digest e = eldest.next();
                if (e == d) break;
                cachedFindings -= e.findings().size();
                eldest.remove();
            }
        }
        return d;
    }
}
