package dev.crucible.derive;

import dev.crucible.contract.UnittestScripts;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A test step that runs a unittest script ({@code python test.py}, python-slugify's CI) is recognised as
 * unittest, so it is graded per test like {@code python -m unittest}; the grader reads the same script
 * the same way ({@link UnittestScripts}).
 */
final class UnittestSteps {
    private static final Pattern SCRIPT = Pattern.compile("python(\\d(\\.\\d+)?)?\\s+([\\w./-]+\\.py)(\\s+[\\w./=-]+)*");

    private UnittestSteps() {
    }

    static void recognise(List<PlannedStep> tests, Function<String, String> readFile) {
        for (PlannedStep p : tests) {
            if (p.commandScript == null || p.shellTemplate != null || p.workingDirectory != null && !p.workingDirectory.equals(".")) {
                continue;
            }
            List<String> lines = CommandClassifier.logicalLines(p.commandScript);
            Matcher m = lines.size() == 1 ? SCRIPT.matcher(lines.get(0).strip()) : null;
            if (m != null && m.matches() && UnittestScripts.isUnittestScript(readFile.apply(m.group(3).replaceFirst("^\\./", "")))) {
                p.recognised = "unittest";
            }
        }
    }
}
