package dev.crucible.console.trace;

import java.util.List;
import java.util.Map;

/**
 * One page of a rollout's timeline. {@code events}: how many the trajectory holds, {@code lastSeq} the highest #;
 * {@code rows}: those of this page; {@code findings}: every finding of the trajectory (the first {@code MAX_FINDINGS}),
 * each with the event it began at (its cause), for "first" and "next finding"; {@code kinds}: events per kind;
 * {@code problems}: what could not be read (a broken segment's file and line). {@code present} is false, with
 * {@code message} saying why, when the attempt has no trajectory.
 */
public record TracePage(String id, boolean present, String message, long events, long lastSeq, long from, int limit, List<Row> rows,
                        List<FindingRef> findings, int findingsLeftOut, Map<String, Long> kinds, List<String> problems) {

    /** A timeline line; {@code findings}: the # of the findings that began at this event. */
    public record Row(long seq, String time, String kind, Integer step, Long cause, String summary, String severity, List<Long> findings) {}

    /** {@code at}: the event the finding began at (its cause where it names one, else the finding itself). */
    public record FindingRef(long seq, long at, String detector, String rule, String severity, String path) {}
}
