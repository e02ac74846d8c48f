package dev.crucible.probe.train;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One labelled task: its text (a single turn) or agent trajectory (several turns), how often the
 * target solver solved it ({@code k} of {@code n} attempts), the group key that cross-validation
 * folds hold out together (e.g. the repository), and whether it passed the cheap validity check.
 * {@code solvers} holds the solve counts of each named solver where the corpus labels several (the
 * paper's 3B and 7B targets); {@link #forSolver} makes one of them the target.
 */
public record CorpusRow(String id, List<String> turns, int k, int n, String group, boolean valid,
                        Map<String, Counts> solvers) {

    /** k of n attempts solved. */
    public record Counts(int k, int n) {
    }

    public CorpusRow {
        turns = List.copyOf(turns);
        solvers = java.util.Collections.unmodifiableMap(new TreeMap<>(solvers));
    }

    public CorpusRow(String id, List<String> turns, int k, int n, String group, boolean valid) {
        this(id, turns, k, n, group, valid, Map.of());
    }

    public double solveRate() {
        return (double) k / n;
    }

    /** This row with the named solver's counts as its labels. */
    public CorpusRow forSolver(String solver) {
        Counts c = solvers.get(solver);
        if (c == null) {
            throw new IllegalArgumentException("row '" + id + "' has no counts for solver '" + solver
                    + "' (field 'solvers' has " + solvers.keySet() + ")");
        }
        return new CorpusRow(id, turns, c.k(), c.n(), group, valid, solvers);
    }
}
