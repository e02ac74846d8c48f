package dev.crucible.derive;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * A matrix cell whose test command builds or runs Docker containers cannot be graded: neither the local sandbox
 * nor a cluster's pod has a Docker daemon. When derive chose such a cell on its own, the best other Linux cell whose
 * tests run without Docker is taken instead (thefuck: its newest Python on ubuntu runs the functional tests through
 * {@code docker build}; every other cell runs pytest).
 */
final class DockerFreeCell {
    private static final Pattern DOCKER = Pattern.compile("(^|[\\s;&|(])(docker\\s+(build|run|compose|exec|pull)|docker-compose)\\b");

    private DockerFreeCell() {
    }

    static boolean usesDocker(Derivation d) {
        return d.verifier() != null && d.verifier().command() != null && DOCKER.matcher(d.verifier().command()).find();
    }

    interface Deriver {
        Derivation derive(DerivationRequest request) throws DerivationException;
    }

    /** {@code first} unless its tests need Docker and another cell's do not. */
    static Derivation prefer(Derivation first, DerivationRequest request, WorkflowJob job, String commit, Deriver deriver) {
        if (!request.matrix().isEmpty() || !usesDocker(first)) return first;
        for (Map<String, String> cell : MatrixChooser.ranked(job, commit)) {
            if (cell.equals(first.matrix())) continue;
            try {
                Derivation d = deriver.derive(new DerivationRequest(request.repo(), request.commit(), request.workflowPath(),
                        request.job() != null ? request.job() : job.id(), cell, request.testStepOverride()));
                if (!usesDocker(d)) {
                    d.notes().add(0, "matrix: " + MatrixExpander.describe(new java.util.LinkedHashMap<String, Object>(first.matrix()))
                            + " runs its tests through Docker (no Docker daemon where the environment runs): took the best "
                            + "cell whose tests do not");
                    return d;
                }
            } catch (DerivationException e) {
                continue;
            }
        }
        return first;
    }
}
