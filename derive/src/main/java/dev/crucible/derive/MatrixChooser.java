package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Chooses the matrix combination to derive for: the first one with every value asked for with
 * --matrix; without --matrix the newest stable one whose toolchain is available (see
 * {@link MatrixRanking}); always preferring combinations that run on Linux, where the environment runs.
 */
final class MatrixChooser {
    static final Pattern NOT_LINUX = Pattern.compile("(?i).*\\b(windows|macos|mac-?os|osx)\\b.*");

    /**
     * @param combination the chosen combination (plain values for expressions)
     * @param described   the same as text, for the manifest and the report
     * @param total       how many combinations the matrix has
     */
    record Choice(Map<String, Object> combination, Map<String, String> described, int total) {
    }

    private MatrixChooser() {
    }

    static Choice choose(String file, WorkflowJob job, Map<String, String> wanted, String commit, List<String> notes)
            throws DerivationException {
        List<Map<String, Object>> combos;
        try {
            combos = MatrixExpander.expand(job.matrix());
        } catch (MatrixExpander.MatrixException e) {
            if (wanted.isEmpty()) {
                throw new DerivationException(file, job.id(), job.matrixLine(), e.getMessage());
            }
            notes.add("the matrix could not be expanded here (" + e.getMessage() + "); used the --matrix values as given");
            return new Choice(new LinkedHashMap<>(wanted), new LinkedHashMap<>(wanted), 1);
        }
        for (String key : wanted.keySet()) {
            if (combos.stream().noneMatch(c -> c.containsKey(key))) {
                throw new DerivationException(file, job.id(), job.matrix() == null ? job.line() : job.matrixLine(),
                        job.matrix() == null ? "--matrix " + key + "=...: the job has no matrix"
                                : "--matrix " + key + "=...: the matrix has no key '" + key + "' (keys: "
                                        + String.join(", ", keys(combos)) + ")");
            }
        }
        List<Map<String, Object>> candidates = combos.stream().filter(c -> MatrixExpander.matches(c, wanted)).toList();
        if (candidates.isEmpty()) {
            List<String> all = combos.stream().map(MatrixExpander::describe).toList();
            throw new DerivationException(file, job.id(), job.matrixLine(), "no matrix combination has "
                    + MatrixExpander.describe(new LinkedHashMap<>(wanted)) + "; the combinations are: "
                    + String.join(" | ", all));
        }
        List<Map<String, Object>> linux = candidates.stream().filter(c -> !runsOnOtherOs(job, c, commit)).toList();
        int skipped = candidates.size() - linux.size();
        if (linux.isEmpty()) {
            linux = candidates;
            skipped = 0;
        }
        Map<String, Object> chosen = linux.get(0);
        String why = "";
        if (wanted.isEmpty() && linux.size() > 1) {
            List<Map<String, String>> described = linux.stream().map(MatrixChooser::described).toList();
            java.util.Optional<Integer> best = MatrixRanking.best(described);
            if (best.isPresent()) {
                chosen = linux.get(best.get());
                Map<String, String> d = described.get(best.get());
                why = MatrixRanking.stable(d) && MatrixRanking.available(d) ? "; the newest stable one whose toolchain is available"
                        : MatrixRanking.stable(d) ? "; the newest stable one (no combination's toolchain is available here)"
                        : "; no stable combination";
            }
        }
        if (job.matrix() != null) {
            notes.add("matrix: chose " + MatrixExpander.describe(chosen) + " (combination "
                    + (combos.indexOf(chosen) + 1) + " of " + combos.size() + ")" + why
                    + (skipped > 0 ? "; skipped " + skipped + " combination(s) that run on Windows or macOS" : ""));
        }
        return new Choice(chosen, described(chosen), combos.size());
    }

    /** The job's Linux combinations, described, best first by {@link MatrixRanking}; empty when it has no matrix. */
    static List<Map<String, String>> ranked(WorkflowJob job, String commit) {
        if (job.matrix() == null) return List.of();
        List<Map<String, Object>> combos;
        try {
            combos = MatrixExpander.expand(job.matrix());
        } catch (MatrixExpander.MatrixException e) {
            return List.of();
        }
        List<Map<String, String>> left = new ArrayList<>(combos.stream().filter(c -> !runsOnOtherOs(job, c, commit))
                .map(MatrixChooser::described).toList());
        List<Map<String, String>> out = new ArrayList<>();
        while (!left.isEmpty()) {
            int best = MatrixRanking.best(left).orElse(0);
            out.add(left.remove(best));
        }
        return out;
    }

    private static Map<String, String> described(Map<String, Object> combo) {
        Map<String, String> described = new LinkedHashMap<>();
        combo.forEach((k, v) -> described.put(k, ExpressionValues.text(v)));
        return described;
    }

    private static boolean runsOnOtherOs(WorkflowJob job, Map<String, Object> combo, String commit) {
        if (job.runsOn() == null) {
            return false;
        }
        String text = ExpressionValues.text(job.runsOn());
        try {
            text = ExpressionTemplates.substitute(text, new ExpressionContext(combo, Map.of(), commit)).text();
        } catch (ExpressionEvaluator.SyntaxError e) {
            return false;
        }
        return NOT_LINUX.matcher(text).matches();
    }

    private static List<String> keys(List<Map<String, Object>> combos) {
        List<String> out = new ArrayList<>();
        combos.forEach(c -> c.keySet().forEach(k -> {
            if (!out.contains(k)) {
                out.add(k);
            }
        }));
        return out;
    }
}
