package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * pytest-xdist's worker processes ({@code -n auto}, {@code --numprocesses=4}) in the test command or in
 * {@code PYTEST_ADDOPTS}: the grader's per-test reporter runs in each worker, which never reaches the end of the
 * session it expects, so grading did not trust any result (fastapi's {@code pytest -n auto}, scrapy's job env
 * {@code PYTEST_ADDOPTS: -n auto --no-cov}: "pytest (process N) never reached the end of its session"). The option is
 * taken out, with a note: the tests run in one process, as {@code -n 0} would, slower but graded per test.
 */
final class XdistWorkers {
    private static final String OPTION = "(?<=^|\\s)(?:-n\\s*(?:auto|logical|\\d+)|--numprocesses(?:=|\\s+)\\S+|--dist(?:=|\\s+)\\S+|--maxprocesses(?:=|\\s+)\\S+)(?=\\s|$)";

    private XdistWorkers() {
    }

    /** Rewrites PYTEST_ADDOPTS in {@code env} and pytest lines of the test steps; notes what changed. */
    static void apply(Map<String, String> env, List<PlannedStep> tests, List<String> notes) {
        List<String> changed = new ArrayList<>();
        String addopts = env.get("PYTEST_ADDOPTS");
        if (addopts != null && !strip(addopts).equals(addopts.strip())) {
            env.put("PYTEST_ADDOPTS", strip(addopts));
            changed.add("PYTEST_ADDOPTS '" + addopts.strip() + "'");
        }
        for (PlannedStep p : tests) {
            String own = p.env.get("PYTEST_ADDOPTS");
            if (own != null && !strip(own).equals(own.strip())) {
                p.env.put("PYTEST_ADDOPTS", strip(own));
                changed.add("step " + p.step.number() + "'s PYTEST_ADDOPTS");
            }
            if (p.commandScript == null || p.shellTemplate != null) continue;
            StringBuilder out = new StringBuilder();
            boolean any = false;
            for (String line : p.commandScript.split("\n", -1)) {
                String runner = CommandClassifier.classifyLine(line).what();
                if (runner != null && runner.contains("pytest") && !strip(line).equals(line.strip())) {
                    changed.add("`" + line.strip() + "`");
                    line = strip(line);
                    any = true;
                }
                out.append(line).append('\n');
            }
            if (any) p.commandScript = out.toString().stripTrailing();
        }
        if (!changed.isEmpty()) {
            notes.add("pytest-xdist workers taken out of " + String.join(", ", changed) + ": the grader's per-test "
                    + "reporter does not follow worker processes, so the tests run in one process (slower, graded per test)");
        }
    }

    static String strip(String text) {
        return text.replaceAll(OPTION, "").replaceAll("[ \\t]{2,}", " ").strip();
    }
}
