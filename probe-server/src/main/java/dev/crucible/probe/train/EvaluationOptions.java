package dev.crucible.probe.train;

import java.nio.file.Path;

/**
 * How training checks itself. {@code outerFolds}: nested grouped CV for the held-out figure (0 =
 * off); {@code permutations}: size of the within-group label-shuffle null (0 = off);
 * {@code testCorpus}: a labelled corpus scored by the served probe only; {@code baselineMargin}: AUC
 * by which the probe must beat each baseline before the report stops warning; {@code autoFloor}:
 * the invalid-task floor was not given, so training chooses one below every valid task's reward;
 * {@code ensemble}: at most this many heads in the served worst-case ensemble (1 = one head);
 * {@code solverFacets}: sweep the corpus's other named solvers too, for the head × solver facets.
 */
public record EvaluationOptions(int outerFolds, int permutations, Path testCorpus, double baselineMargin,
                                boolean autoFloor, int ensemble, boolean solverFacets) {
    public static final EvaluationOptions DEFAULT = new EvaluationOptions(5, 20, null, 0.02, true, 1, true);

    public EvaluationOptions(int outerFolds, int permutations, Path testCorpus, double baselineMargin,
                             boolean autoFloor, int ensemble) {
        this(outerFolds, permutations, testCorpus, baselineMargin, autoFloor, ensemble, true);
    }

    public EvaluationOptions(int outerFolds, int permutations, Path testCorpus, double baselineMargin,
                             boolean autoFloor) {
        this(outerFolds, permutations, testCorpus, baselineMargin, autoFloor, 1, true);
    }

    public EvaluationOptions {
        if (outerFolds < 0 || outerFolds == 1) {
            throw new IllegalArgumentException("outer folds must be 0 (off) or >= 2, got " + outerFolds);
        }
        if (ensemble < 1) {
            throw new IllegalArgumentException("ensemble must be >= 1 head, got " + ensemble);
        }
        if (permutations < 0) {
            throw new IllegalArgumentException("permutations must be >= 0, got " + permutations);
        }
    }
}
