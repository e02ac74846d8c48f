package dev.crucible.probe.serve;

import java.util.List;

/** One task to score: a rendered task is a single turn; an agent trajectory has several. */
public record ScoreItem(String id, List<String> turns, boolean valid) {
    public ScoreItem {
        turns = List.copyOf(turns);
    }

    public static ScoreItem text(String id, String text, boolean valid) {
        return new ScoreItem(id, List.of(text), valid);
    }
}
