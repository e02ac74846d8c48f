package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Chooses the matrix combination to derive for: the first one with every value asked for with
 * --matrix, preferring combinations that run on Linux, because that is where the environment runs.
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
        Map<String, Object> chosen = candidates.get(0);
        int skipped = 0;
        for (Map<String, Object> c : candidates) {
            if (!runsOnOtherOs(job, c, commit)) {
                chosen = c;
                break;
            }
            skipped++;
        }
        if (skipped == candidates.size()) {
            chosen = candidates.get(0);
            skipped = 0;
        }
        if (job.matrix() != null) {
            notes.add("matrix: chose " + MatrixExpander.describe(chosen) + " (combination "
                    + (combos.indexOf(chosen) + 1) + " of " + combos.size() + ")"
                    + (skipped > 0 ? "; skipped " + skipped + " earlier combination(s) that run on Windows or macOS" : ""));
        }
        Map<String, String> described = new LinkedHashMap<>();
        chosen.forEach((k, v) -> described.put(k, ExpressionValues.text(v)));
        return new Choice(chosen, described, combos.size());
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
