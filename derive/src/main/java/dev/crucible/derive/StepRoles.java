package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Decides what each still-undecided step becomes once it is known where the tests are: the test steps
 * (found by what they run, or named with --test-step) become the verifier, in order; lint steps the
 * lint verifier; what comes before the last test is setup; what comes after it is dropped, because a
 * verifier only needs what the tests need.
 */
final class StepRoles {
    private StepRoles() {
    }

    /**
     * The steps that make up each verifier, in workflow order.
     *
     * @param verifier          the test steps, or the lint steps when the job runs no tests
     * @param lint              the separate lint verifier's steps (empty when lint is the verifier)
     * @param lintIsTheVerifier whether the job only lints
     */
    record Roles(List<PlannedStep> verifier, List<PlannedStep> lint, boolean lintIsTheVerifier) {
    }

    static Roles assign(String file, WorkflowJob job, List<PlannedStep> steps, String testStepOverride)
            throws DerivationException {
        List<PlannedStep> tests = testStepOverride != null
                ? chosen(file, job, steps, testStepOverride)
                : gating(steps.stream().filter(p -> p.undecided() && p.kind == CommandKind.TEST).toList());
        List<PlannedStep> lint = new ArrayList<>(steps.stream()
                .filter(p -> p.undecided() && p.kind == CommandKind.LINT && !tests.contains(p)).toList());
        boolean lintIsTheVerifier = false;
        List<PlannedStep> verifierSteps = tests;
        if (tests.isEmpty()) {
            if (lint.isEmpty()) {
                throw new DerivationException(file, job.id(), job.line(), "the job has no step that runs tests "
                        + "(looked for pytest, tox, nox, unittest, npm/yarn/pnpm test, mvn/gradle, go test, "
                        + "cargo test, make test ...); its steps: " + describe(steps)
                        + ". Name the test step with --test-step");
            }
            lintIsTheVerifier = true;
            verifierSteps = lint;
        }
        int last = verifierSteps.get(verifierSteps.size() - 1).step.number();
        int first = verifierSteps.get(0).step.number();
        for (PlannedStep p : steps) {
            if (!p.undecided()) {
                continue;
            }
            if (tests.contains(p)) {
                p.set(Disposition.TEST, "runs the tests" + recognised(p) + (testStepOverride != null
                        ? " (chosen with --test-step)" : ""));
            } else if (lint.contains(p)) {
                p.set(Disposition.LINT, (lintIsTheVerifier ? "lints" + recognised(p)
                        + "; the job runs no tests, so linting is the verifier" : "lints" + recognised(p)
                        + ": kept as the separate 'lint' verifier"));
            } else if (p.kind == CommandKind.TEST) {
                p.set(Disposition.DROPPED, p.continueOnError
                        ? "runs tests" + recognised(p) + " but has continue-on-error, so CI does not gate on it"
                        : "runs tests" + recognised(p) + ", but --test-step chose other steps");
            } else if (p.kind == CommandKind.CI_ONLY && !keepsNonCiLines(p, p.step.number() <= last)) {
                p.set(Disposition.DROPPED, "CI-only (" + p.recognised + "): publishing or uploading, not needed "
                        + "to run the tests");
            } else if (p.kind == CommandKind.CI_ONLY) {
                p.set(Disposition.SETUP, "prepares the workspace; its CI-only lines were left out");
            } else if (p.step.number() > last) {
                p.set(Disposition.DROPPED, "runs after the last " + (lintIsTheVerifier ? "lint" : "test")
                        + " step: not needed to set up or run them");
            } else {
                p.set(Disposition.SETUP, p.step.uses() != null && p.reason != null ? p.reason : "prepares the workspace"
                        + (p.recognised != null ? " (" + p.recognised + ")" : ""));
                if (p.step.number() > first) {
                    p.notes.add("runs between " + (lintIsTheVerifier ? "lint" : "test") + " steps in CI; "
                            + "here it runs in setup, before all of them");
                }
            }
            if ((p.disposition == Disposition.TEST || p.disposition == Disposition.LINT) && !p.setupLines.isEmpty()) {
                p.notes.add("its install commands (" + String.join("; ", p.setupLines) + ") run in setup");
            }
        }
        return new Roles(verifierSteps, lintIsTheVerifier ? List.of() : lint, lintIsTheVerifier);
    }

    /**
     * A setup step that also uploads or publishes (install deps, then `pip install coveralls`, ...) keeps
     * its other lines; true when it had some (the script is then without the CI-only ones).
     */
    private static boolean keepsNonCiLines(PlannedStep p, boolean beforeTheTests) {
        if (!beforeTheTests || p.script == null || p.shellTemplate != null || CommandClassifier.isStructured(p.script)) {
            return false;
        }
        List<String> kept = new ArrayList<>();
        List<String> left = new ArrayList<>();
        for (String line : CommandClassifier.logicalLines(p.script)) {
            (CommandClassifier.classifyLine(line).kind() == CommandKind.CI_ONLY ? left : kept).add(line);
        }
        if (kept.isEmpty()) {
            return false;
        }
        p.script = String.join("\n", kept);
        p.commandScript = p.script;
        p.notes.add("left out as CI-only: " + String.join("; ", left));
        return true;
    }

    /** Test steps with continue-on-error do not fail CI; leave them out unless nothing else tests. */
    private static List<PlannedStep> gating(List<PlannedStep> tests) {
        List<PlannedStep> gating = tests.stream().filter(p -> !p.continueOnError).toList();
        return gating.isEmpty() ? tests : gating;
    }

    /** The steps --test-step names: by name or id (case-insensitive) or 1-based number, comma-separated. */
    private static List<PlannedStep> chosen(String file, WorkflowJob job, List<PlannedStep> steps, String override)
            throws DerivationException {
        List<PlannedStep> out = new ArrayList<>();
        PlannedStep whole = find(steps, override.strip());
        List<String> wanted = whole != null ? List.of(override.strip()) : List.of(override.split(","));
        for (String w : wanted) {
            PlannedStep p = find(steps, w.strip());
            if (p == null) {
                throw new DerivationException(file, job.id(), job.line(), "--test-step '" + w.strip()
                        + "' names no step of the job; its steps: " + describe(steps));
            }
            if (p.script == null) {
                throw new DerivationException(file, job.id(), p.step.line(), "--test-step '" + w.strip()
                        + "' is step " + p.step.number() + ", which uses an action (" + p.step.uses()
                        + "); only run: steps can be the test command");
            }
            if (!p.undecided()) {
                throw new DerivationException(file, job.id(), p.step.line(), "--test-step '" + w.strip()
                        + "' is step " + p.step.number() + ", which is dropped: " + p.reason);
            }
            if (!out.contains(p)) {
                out.add(p);
            }
        }
        out.sort((a, b) -> Integer.compare(a.step.number(), b.step.number()));
        return out;
    }

    private static PlannedStep find(List<PlannedStep> steps, String key) {
        String k = key.toLowerCase(Locale.ROOT);
        for (PlannedStep p : steps) {
            WorkflowStep s = p.step;
            if (k.equals(String.valueOf(s.number())) || (s.name() != null && s.name().toLowerCase(Locale.ROOT).equals(k))
                    || (s.id() != null && s.id().toLowerCase(Locale.ROOT).equals(k))) {
                return p;
            }
        }
        return null;
    }

    private static String recognised(PlannedStep p) {
        return p.recognised != null ? " (" + p.recognised + ")" : "";
    }

    static String describe(List<PlannedStep> steps) {
        List<String> parts = new ArrayList<>();
        for (PlannedStep p : steps) {
            parts.add(p.step.number() + " '" + p.step.label() + "' (line " + p.step.line() + ")");
        }
        return String.join(", ", parts);
    }
}
