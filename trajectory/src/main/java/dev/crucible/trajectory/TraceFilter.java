package dev.crucible.trajectory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Which events a timeline shows. {@code kinds}: event kinds or their prefix ({@code process} is both process kinds);
 * {@code fromSeq..toSeq}: the timeline's numbers (#N, the ATIF step ids when no event was lost); {@code finding}: the
 * findings whose detector, rule or path contains it ({@code ""}: every finding), each with the chain of events that
 * caused it (the file change, the process it is attributed to). Empty kinds and no finding: everything.
 */
public record TraceFilter(List<String> kinds, long fromSeq, long toSeq, String finding) {
    public static TraceFilter all() { return new TraceFilter(List.of(), 1, Long.MAX_VALUE, null); }

    boolean kindMatches(TraceEvent e) {
        if (kinds.isEmpty()) return true;
        for (String k : kinds) if (e.kind().equals(k) || e.kind().startsWith(k + ".")) return true;
        return false;
    }

    boolean findingMatches(TraceEvent e) {
        if (!EventKind.FINDING.equals(e.kind())) return false;
        if (finding.isEmpty()) return true;
        for (String f : new String[] {"detector", "rule", "path"}) {
            String v = e.text(f);
            if (v != null && v.toLowerCase().contains(finding.toLowerCase())) return true;
        }
        return false;
    }

    /**
     * Hands the selected events to {@code out} in order. With a finding filter, the trajectory is read once per link
     * of the cause chains (a finding → its file change → its process: three reads), keeping only the chains' numbers.
     */
    public void select(Path dir, Consumer<TraceEvent> out, Consumer<String> problems) throws IOException {
        Set<Long> wanted = new HashSet<>();
        if (finding != null) {
            Set<Long> frontier = new HashSet<>();
            TrajectoryReader.read(dir, e -> {
                if (findingMatches(e)) {
                    wanted.add(e.seq());
                    if (e.cause() != null) frontier.add(e.cause());
                }
            }, x -> { });
            for (int depth = 0; depth < 4 && !frontier.isEmpty(); depth++) {
                Set<Long> next = new HashSet<>();
                wanted.addAll(frontier);
                TrajectoryReader.read(dir, e -> {
                    if (frontier.contains(e.seq()) && e.cause() != null && !wanted.contains(e.cause())) next.add(e.cause());
                }, x -> { });
                frontier.clear();
                frontier.addAll(next);
            }
        }
        TrajectoryReader.read(dir, e -> {
            if (e.seq() < fromSeq || e.seq() > toSeq) return;
            if (finding != null ? wanted.contains(e.seq()) && (kinds.isEmpty() || kindMatches(e)) : kindMatches(e)) out.accept(e);
        }, problems);
    }
}
