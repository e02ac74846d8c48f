package dev.crucible.probe.train;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The sweep once per target solver, where the corpus labels several (its {@code solvers} field):
 * PROPEL's figures 7–8 facet the sweep by head architecture and target-solver size, because a cell
 * that reads one solver's difficulty well may not read another's. The probe is trained and served
 * for one target only; the other solvers' sweeps reuse its rows, folds and features and are drawn
 * and reported beside it ({@code sweep_solvers.png}, report.json's {@code solverFacets}).
 */
public final class SolverFacets {

    /** One solver's sweep; {@code note} says why a solver has no results (one class, or not in every row). */
    public record Facet(String solver, boolean target, List<CellResult> results, String note) {
        public CellResult best() {
            return results.stream().filter(r -> !Double.isNaN(r.balancedAccuracy()))
                    .max(java.util.Comparator.comparingDouble(CellResult::balancedAccuracy)).orElse(null);
        }
    }

    private SolverFacets() {
    }

    /**
     * Facets for every solver named in the corpus, the target's from {@code targetResults}; empty when
     * the corpus names no solver other than the target. A solver whose counts equal the target's in
     * every row is the target (a corpus may repeat its top-level k/n under a name).
     */
    public static List<Facet> run(List<CorpusRow> rows, String targetName, List<CellResult> targetResults,
                                  LabelBand band, ProbeSweep sweep, List<SweepCell> cells, int threads)
            throws Exception {
        Map<String, Integer> seen = new LinkedHashMap<>();
        for (CorpusRow r : rows) {
            r.solvers().keySet().forEach(s -> seen.merge(s, 1, Integer::sum));
        }
        String target = targetName != null ? targetName : sameAsTopLevel(rows, seen);
        List<Facet> facets = new ArrayList<>();
        facets.add(new Facet(target == null ? "k/n (top level)" : target, true, targetResults, null));
        for (String s : new TreeSet<>(seen.keySet())) {
            if (s.equals(target)) {
                continue;
            }
            if (seen.get(s) < rows.size()) {
                facets.add(new Facet(s, false, List.of(), "counts in " + seen.get(s) + " of " + rows.size()
                        + " rows; a facet needs every row"));
                continue;
            }
            int[] labels = new int[rows.size()];
            double[] rates = new double[rows.size()];
            int positives = 0;
            for (int i = 0; i < rows.size(); i++) {
                CorpusRow r = rows.get(i).forSolver(s);
                labels[i] = band.positive(r.k(), r.n()) ? 1 : 0;
                rates[i] = r.solveRate();
                positives += labels[i];
            }
            if (positives == 0 || positives == rows.size()) {
                facets.add(new Facet(s, false, List.of(), "the band " + band + " makes every row "
                        + (positives == 0 ? "negative" : "positive")));
                continue;
            }
            facets.add(new Facet(s, false, sweep.withLabels(labels, rates).run(cells, threads), null));
        }
        return facets.size() > 1 ? facets : List.of();
    }

    /** The solver whose counts are the top-level k/n in every row, if any. */
    private static String sameAsTopLevel(List<CorpusRow> rows, Map<String, Integer> seen) {
        for (String s : seen.keySet()) {
            boolean same = rows.stream().allMatch(r -> {
                CorpusRow.Counts c = r.solvers().get(s);
                return c != null && c.k() == r.k() && c.n() == r.n();
            });
            if (same) {
                return s;
            }
        }
        return null;
    }
}
