package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Takes coverage measurement out of the test command: {@code coverage run -m pytest} becomes {@code python
 * -m pytest}, {@code pytest --cov=pkg} loses its --cov options, {@code go test} its -cover flags, and {@code coverage
 * xml/report} lines go.
 * Grading runs the tests in a read-only tree, where coverage cannot write its data file, and a reward
 * depends on the tests passing, not on how much they cover. Also makes a plain pytest run per-test gradable.
 */
final class CoverageWrappers {
    private static final Set<String> COVERAGE_OPTIONS_WITH_VALUE = Set.of("--source", "--rcfile", "--include",
            "--omit", "--data-file", "--concurrency", "--context");
    private static final Set<String> COV_OPTIONS_WITH_VALUE = Set.of("--cov-report", "--cov-config",
            "--cov-fail-under", "--cov-context");

    private CoverageWrappers() {
    }

    static void strip(List<PlannedStep> tests) {
        for (PlannedStep p : tests) {
            if (p.shellTemplate != null || p.commandScript == null || CommandClassifier.isStructured(p.commandScript)) {
                continue;
            }
            List<String> out = new ArrayList<>();
            List<String> changed = new ArrayList<>();
            for (String line : CommandClassifier.logicalLines(p.commandScript)) {
                String rewritten = rewrite(line);
                if (rewritten == null) {
                    changed.add("dropped `" + line + "`");
                } else {
                    if (!rewritten.equals(line)) {
                        changed.add("`" + line + "` → `" + rewritten + "`");
                    }
                    out.add(rewritten);
                }
            }
            if (out.size() > 1) {
                // A multi-line test command is graded by its exit code in the read-only grading tree, where
                // pytest's cache cannot be written (a warning that -W error suites turn into a failure).
                for (int i = 0; i < out.size(); i++) {
                    String l = out.get(i);
                    if (l.matches("(python[0-9.]* -m pytest|pytest|py\\.test)(\\s.*)?") && !l.contains("cacheprovider")) {
                        out.set(i, l.replaceFirst("^(python[0-9.]* -m pytest|pytest|py\\.test)", "$1 -p no:cacheprovider"));
                        changed.add("`" + l + "` without pytest's cache");
                    }
                }
            }
            if (!changed.isEmpty() && out.stream().anyMatch(l -> CommandClassifier.classifyLine(l).kind() == CommandKind.TEST)) {
                p.commandScript = String.join("\n", out);
                if (p.recognised != null && p.recognised.startsWith("coverage run -m ")) {
                    p.recognised = p.recognised.substring("coverage run -m ".length());
                }
                p.notes.add("test command adjusted for grading (its tree is read-only; the reward does not depend on "
                        + "coverage): " + String.join("; ", changed));
            }
        }
    }

    /** The line without coverage; null when the line only reports coverage. */
    static String rewrite(String line) {
        String[] w = line.strip().split("\\s+");
        if (w.length >= 2 && w[0].equals("coverage") && Set.of("xml", "report", "html", "lcov", "json", "combine",
                "erase").contains(w[1])) {
            return null;
        }
        if (line.contains("&&") || line.contains("||") || line.contains(";") || line.contains("|")) {
            return line;
        }
        List<String> out = new ArrayList<>();
        int i = 0;
        boolean python = false;
        if (w.length >= 2 && (w[0].equals("coverage") || w[0].matches("python[0-9.]*") && w.length >= 4
                && w[1].equals("-m") && w[2].equals("coverage")) && List.of(w).contains("run")) {
            i = List.of(w).indexOf("run") + 1;
            while (i < w.length && w[i].startsWith("-") && !w[i].equals("-m")) {
                i += COVERAGE_OPTIONS_WITH_VALUE.contains(w[i]) ? 2 : 1;
            }
            out.add("python");
            python = true;
        }
        // go test's coverage flags: -coverprofile writes its file into the tree, read-only in grading (caddy: "open
        // cover-profile.out: read-only file system" before any test ran); the others only measure. Up to -args.
        boolean goTest = w.length >= 2 && w[0].equals("go") && w[1].equals("test");
        for (; i < w.length; i++) {
            String x = w[i];
            if (goTest && x.equals("-args")) goTest = false;
            if (goTest && x.matches("--?cover(profile|mode|pkg)?(=.*)?")) {
                if (x.matches("--?cover(profile|mode|pkg)")) i++;
                continue;
            }
            if (x.startsWith("--cov")) {
                if (COV_OPTIONS_WITH_VALUE.contains(x)) {
                    i++;
                }
                continue;
            }
            out.add(x);
        }
        String result = String.join(" ", out);
        return python || !result.equals(String.join(" ", w)) ? result : line;
    }
}
