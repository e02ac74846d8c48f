package dev.crucible.console.trace;

import java.util.List;
import java.util.Map;

/**
 * One event as the step view shows it: {@code call} (the command, or the tool and its arguments), {@code output},
 * {@code diff} (a file change's unified diff, or why there is none), with every blob it refers to read back;
 * {@code causes}: the chain of events it follows from (a finding → its file change → the process that made it);
 * {@code caused}: the events that name it as their cause (the findings that began here); {@code problems}: a missing
 * blob, an unreadable line.
 */
public record EventDetail(String id, long seq, String time, String kind, Integer step, Long cause, String summary, String call,
                          String output, String diff, Map<String, Object> data, List<Link> causes, List<Link> caused, long events,
                          long lastSeq, List<String> problems) {

    public record Link(long seq, String kind, String summary, String severity) {}
}
