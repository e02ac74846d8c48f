package dev.crucible.cli.probe;

import dev.crucible.probe.train.CellResult;
import dev.crucible.probe.train.ProbeTrainer;
import dev.crucible.probe.train.SolverFacets;
import dev.crucible.probe.train.TrainChecks;
import java.io.PrintStream;
import java.util.Locale;

/** The lines of {@code probe train}'s summary after the selection line: the figures to believe, and warnings. */
final class TrainSummary {
    private TrainSummary() {
    }

    static void print(ProbeTrainer.Outcome o, PrintStream out) {
        TrainChecks c = o.checks();
        out.printf(Locale.ROOT, "selection (best of %d cells, optimistic): auc=%.3f bal_acc=%.3f%n",
                o.results().size(), o.selected().auc(), o.selected().balancedAccuracy());
        if (c.nested() != null) {
            out.printf(Locale.ROOT, "held-out (nested grouped CV, %d outer folds): %s%n", c.nested().outerFolds(),
                    c.nested().figures().summary());
        }
        if (c.band() != null) {
            out.printf(Locale.ROOT, "chance band (%d within-group label shuffles, 5-95%%): auc [%.3f, %.3f] "
                            + "bal_acc [%.3f, %.3f]%n", c.band().permutations(), c.band().aucLow(), c.band().aucHigh(),
                    c.band().balancedAccuracyLow(), c.band().balancedAccuracyHigh());
        }
        if (c.test() != null) {
            out.println("test corpus (served probe): " + c.test().summary());
        }
        StringBuilder b = new StringBuilder("baselines (grouped CV auc):");
        c.baselines().auc().forEach((k, v) -> b.append(String.format(Locale.ROOT, " %s=%.3f", k, v)));
        b.append(String.format(Locale.ROOT, "  spearman(score, length)=%.3f", c.spearmanLength()));
        out.println(b);
        out.printf(Locale.ROOT, "served head: platt a=%.3f b=%.3f, rvp=%.4f, invalid floor %.3f%s%n",
                c.calibration().a(), c.calibration().b(), c.servedRvp(), c.floor().reward().reward(0, false),
                c.floor().chosen() ? " (chosen below every valid reward)" : "");
        out.printf(Locale.ROOT, "rvp vs best-of-%d gain over %d cells: pearson=%.3f spearman=%.3f%n",
                Math.round(1 / o.rvpGain().fraction()), o.rvpGain().points().size(), o.rvpGain().pearson(),
                o.rvpGain().spearman());
        for (SolverFacets.Facet f : o.facets()) {
            CellResult best = f.best();
            out.printf(Locale.ROOT, "solver %s%s: %s%n", f.solver(), f.target() ? " (target)" : "",
                    best == null ? f.note() : String.format(Locale.ROOT, "best %s bal_acc=%.3f±%.3f auc=%.3f",
                            best.cell().label(), best.balancedAccuracy(), best.balancedAccuracyStd(), best.auc()));
        }
        c.warnings().forEach(w -> out.println("WARNING " + w.kind() + ": " + w.message()));
    }
}
