package dev.crucible.console.trace;

import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.SafeFiles;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TraceText;
import dev.crucible.trajectory.TrajectoryReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The trace view's reads of one attempt's trajectory/. Each request streams the segments with
 * {@link TrajectoryReader} (one event in memory at a time) and keeps only what it answers: a page of rows, the
 * findings' numbers, one event and its causes. A broken segment's lines are skipped and named in {@code problems}.
 */
public final class TraceService {
    public static final int MAX_PAGE = 1000;
    public static final int MAX_FINDINGS = 1000;
    static final int MAX_CAUSED = 100;
    static final int MAX_CAUSE_DEPTH = 4;
    static final int RECENT = 4096;

    private TraceService() {}

    public static TracePage page(Path attempt, String id, long from, int limit, List<String> kinds) {
        if (limit < 1 || limit > MAX_PAGE) throw ConsoleError.badRequest("limit: " + limit + " is outside 1.." + MAX_PAGE);
        if (from < 1) throw ConsoleError.badRequest("from: " + from + " is below 1 (the first event is #1)");
        Path dir = attempt.resolve("trajectory");
        if (!SafeFiles.isDirectory(dir.resolve("segments"))) {
            return new TracePage(id, false, "this rollout has no trajectory: no trajectory/segments folder beside its result.json "
                    + "(a run from before trajectories were recorded, or one that ended before its agent started)", 0, 0, from, limit,
                    List.of(), List.of(), 0, Map.of(), List.of());
        }
        List<TracePage.Row> rows = new ArrayList<>();
        List<TracePage.FindingRef> findings = new ArrayList<>();
        Map<Long, List<Long>> findingsAt = new HashMap<>();
        Map<String, Long> perKind = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        long[] count = {0, 0, 0}; // events, last seq, findings left out
        List<SegmentIndex.Digest> segments = index(dir, attempt, problems);
        // the totals and the findings come from the segments' digests; rows are read from the segment holding `from` on
        for (SegmentIndex.Digest d : segments) {
            count[0] += d.events();
            count[1] = Math.max(count[1], d.lastSeq());
            count[2] += d.findingsLeftOut();
            d.kinds().forEach((k, v) -> perKind.merge(k, v, Long::sum));
            for (TracePage.FindingRef f : d.findings()) {
                if (findings.size() < MAX_FINDINGS) findings.add(f);
                else count[2]++;
                if (f.at() >= from) findingsAt.computeIfAbsent(f.at(), k -> new ArrayList<>()).add(f.seq());
            }
        }
        for (SegmentIndex.Digest d : segments) {
            if (rows.size() >= limit) break;
            if (d.events() == 0 || d.lastSeq() < from) continue;
            try { // up to the page's last row: the rest of the segment is not parsed
                SegmentIndex.readWhile(d, e -> {
                    if (e.seq() >= from && kindMatches(kinds, e.kind())) {
                        rows.add(new TracePage.Row(e.seq(), e.time(), e.kind(), e.step(), e.cause(), TraceText.summary(e),
                                EventKind.FINDING.equals(e.kind()) ? e.text("severity") : null, null));
                    }
                    return rows.size() < limit;
                });
            } catch (IOException e) {
                problems.add(String.valueOf(e.getMessage()).replace(attempt.toString() + attempt.getFileSystem().getSeparator(), ""));
            }
        }
        List<TracePage.Row> marked = rows.stream().map(r -> new TracePage.Row(r.seq(), r.time(), r.kind(), r.step(), r.cause(), r.summary(),
                r.severity(), findingsAt.getOrDefault(r.seq(), List.of()))).toList();
        return new TracePage(id, true, null, count[0], count[1], from, limit, marked, List.copyOf(findings), (int) count[2], perKind, problems);
    }

    public static EventDetail event(Path attempt, String id, long seq) {
        if (seq < 1) throw ConsoleError.badRequest("event: " + seq + " is below 1 (the first event is #1)");
        Path dir = attempt.resolve("trajectory");
        if (!SafeFiles.isDirectory(dir.resolve("segments"))) {
            throw ConsoleError.notFound("rollout '" + id + "' has no trajectory (no trajectory/segments folder beside its result.json), so no event #" + seq);
        }
        List<String> problems = new ArrayList<>();
        TraceEvent[] found = {null};
        long[] count = {0, 0};
        List<EventDetail.Link> caused = new ArrayList<>();
        // the events just before the target, with their causes: a cause chain is nearly always among them, so it is
        // found in this one pass (bounded memory); an older cause costs one more pass per link
        Map<Long, Recent> recent = new java.util.LinkedHashMap<>(256, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Recent> eldest) { return size() > RECENT; }
        };
        List<SegmentIndex.Digest> segments = index(dir, attempt, problems);
        int at = -1;
        for (int i = 0; i < segments.size(); i++) {
            count[0] += segments.get(i).events();
            count[1] = Math.max(count[1], segments.get(i).lastSeq());
            if (at < 0 && segments.get(i).holds(seq)) at = i;
        }
        // the segment before (for the causes just before it), its own, and the next (what followed from it): never the
        // whole trajectory from the start
        for (int i = Math.max(0, at - 1); at >= 0 && i <= Math.min(segments.size() - 1, at + 1); i++) {
            readSegment(segments.get(i), attempt, e -> {
                if (found[0] == null && e.seq() < seq) recent.put(e.seq(), new Recent(link(e), e.cause()));
                if (e.seq() == seq && found[0] == null) found[0] = e;
                if (e.cause() != null && e.cause() == seq && caused.size() < MAX_CAUSED) caused.add(link(e));
            }, problems);
        }
        if (found[0] == null) {
            if (seq > count[1]) {
                throw ConsoleError.notFound("event #" + seq + " is past the end of rollout '" + id + "': its trajectory has " + count[0]
                        + " events" + (count[1] > 0 ? " (#1–#" + count[1] + ")" : ""));
            }
            throw ConsoleError.notFound("event #" + seq + " of rollout '" + id + "' could not be read"
                    + (problems.isEmpty() ? " (the recorder did not store it)" : ": " + String.join("; ", problems)));
        }
        TraceEvent e = found[0];
        List<EventDetail.Link> causes = causes(segments, attempt, e, recent);
        Blobs blobs = new Blobs(dir, problems);
        Map<String, Object> data = whole(e, blobs, problems);
        data = blobs.resolve(data, "", 0);
        return new EventDetail(id, e.seq(), e.time(), e.kind(), e.step(), e.cause(), TraceText.summary(e), call(e.kind(), data),
                output(e.kind(), data), diff(data), data, causes, caused, count[0], count[1], problems);
    }

    /** An event stored whole as a blob (it was over the recorder's event size) read back, when it can be. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> whole(TraceEvent e, Blobs blobs, List<String> problems) {
        if (!(e.data().get("event") instanceof String ref) || !e.data().containsKey("oversize")) return e.data();
        try {
            TraceEvent big = new com.fasterxml.jackson.databind.ObjectMapper().readValue(blobs.bytes(ref), TraceEvent.class);
            return big.data();
        } catch (IOException | RuntimeException ex) {
            problems.add("event #" + e.seq() + " was stored whole as blob " + ref + " (" + e.data().get("oversize") + " bytes), not read: " + ex.getMessage());
            return e.data();
        }
    }

    private record Recent(EventDetail.Link link, Long cause) {}

    private static List<EventDetail.Link> causes(List<SegmentIndex.Digest> segments, Path attempt, TraceEvent e, Map<Long, Recent> recent) {
        List<EventDetail.Link> chain = new ArrayList<>();
        Long next = e.cause();
        for (int depth = 0; depth < MAX_CAUSE_DEPTH && next != null && next < e.seq(); depth++) {
            long want = next;
            Recent near = recent.get(want);
            if (near != null) {
                chain.add(near.link());
                next = near.cause() != null && near.cause() < want ? near.cause() : null;
                continue;
            }
            TraceEvent[] hit = {null};
            for (SegmentIndex.Digest d : segments) {
                if (d.holds(want)) readSegment(d, attempt, x -> {
                    if (x.seq() == want && hit[0] == null) hit[0] = x;
                }, new ArrayList<>());
            }
            if (hit[0] == null) break;
            chain.add(link(hit[0]));
            next = hit[0].cause() != null && hit[0].cause() < hit[0].seq() ? hit[0].cause() : null;
        }
        return chain;
    }

    private static EventDetail.Link link(TraceEvent e) {
        return new EventDetail.Link(e.seq(), e.kind(), TraceText.summary(e), EventKind.FINDING.equals(e.kind()) ? e.text("severity") : null);
    }

    static String call(String kind, Map<String, Object> d) {
        return switch (kind) {
            case EventKind.PROCESS_START -> str(d.get("command")) + (d.get("cwd") != null ? "\n(in " + d.get("cwd") + ")" : "");
            case EventKind.STEP, EventKind.RESET, EventKind.VERIFY -> (d.get("tool") != null ? d.get("tool") + " " : kind + " ") + json(d.get("args"));
            case EventKind.GRADING -> str(d.get("command"));
            case EventKind.FILE -> d.get("op") + " " + d.get("path");
            default -> null;
        };
    }

    static String output(String kind, Map<String, Object> d) {
        Object o = d.containsKey("output") ? d.get("output") : EventKind.OUTPUT.equals(kind) ? d.get("text")
                : EventKind.FINDING.equals(kind) ? d.get("evidence") : null;
        return o == null ? null : str(o);
    }

    static String diff(Map<String, Object> d) {
        if (d.get("diff") != null) return str(d.get("diff"));
        return d.get("diffNote") != null ? "(no diff: " + d.get("diffNote") + ")" : null;
    }

    private static String str(Object o) { return o == null ? null : o instanceof String s ? s : json(o); }

    private static String json(Object o) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(o);
        } catch (IOException e) {
            return String.valueOf(o);
        }
    }

    private static boolean kindMatches(List<String> kinds, String kind) {
        if (kinds.isEmpty()) return true;
        for (String k : kinds) if (kind.equals(k) || kind.startsWith(k + ".")) return true;
        return false;
    }

    /** The segments' digests; their problems (a refused segment, a malformed line) named relative to the attempt folder. */
    private static List<SegmentIndex.Digest> index(Path dir, Path attempt, List<String> problems) {
        String prefix = attempt.toString() + attempt.getFileSystem().getSeparator();
        try {
            List<SegmentIndex.Digest> ds = SegmentIndex.of(dir);
            for (SegmentIndex.Digest d : ds) for (String p : d.problems()) problems.add(p.replace(prefix, ""));
            return ds;
        } catch (IOException e) {
            problems.add(String.valueOf(e.getMessage()).replace(prefix, ""));
            return List.of();
        }
    }

    private static void readSegment(SegmentIndex.Digest d, Path attempt, java.util.function.Consumer<TraceEvent> out, List<String> problems) {
        try {
            SegmentIndex.read(d, out);
        } catch (IOException e) {
            problems.add(String.valueOf(e.getMessage()).replace(attempt.toString() + attempt.getFileSystem().getSeparator(), ""));
        }
    }
}
