package dev.crucible.probe.train;

import java.util.List;

/**
 * One labelled task: its text (a single turn) or agent trajectory (several turns), how often the
 * target solver solved it ({@code k} of {@code n} attempts), the group key that cross-validation
 * folds hold out together (e.g. the repository), and whether it passed the cheap validity check.
 */
public record CorpusRow(String id, List<String> turns, int k, int n, String group, boolean valid) {
    public CorpusRow {
        turns = List.copyOf(turns);
    }

    public double solveRate() {
        return (double) k / n;
    }
}
