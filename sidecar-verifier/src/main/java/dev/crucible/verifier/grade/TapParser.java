package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses TAP 12/13/14 ("ok 1 - name", "not ok 2 name # TODO …", "# SKIP"). A TODO test that fails is
 * an expected failure (xfail); a plan that promises more tests than ran yields MISSING entries.
 */
public final class TapParser {
    private static final Pattern LINE = Pattern.compile("^\\s*(not ok|ok)\\b\\s*(\\d+)?\\s*(?:-\\s*)?([^#]*?)\\s*(?:#\\s*(\\w+)\\b\\s*(.*))?$");
    private static final Pattern PLAN = Pattern.compile("^\\s*1\\.\\.(\\d+)");

    private TapParser() {}

    public static List<TestCase> parse(String tap) {
        List<TestCase> out = new ArrayList<>();
        int planned = -1;
        int seq = 0;
        for (String line : tap.split("\\R")) {
            Matcher plan = PLAN.matcher(line);
            if (plan.find()) {
                planned = Integer.parseInt(plan.group(1));
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) continue;
            seq++;
            boolean ok = m.group(1).equals("ok");
            int num = m.group(2) == null ? seq : Integer.parseInt(m.group(2));
            String name = m.group(3).isBlank() ? "test " + num : m.group(3).trim();
            String directive = m.group(4) == null ? "" : m.group(4).toUpperCase();
            TestStatus status;
            if (directive.startsWith("SKIP")) status = TestStatus.SKIPPED;
            else if (directive.equals("TODO")) status = ok ? TestStatus.XPASSED : TestStatus.XFAILED;
            else status = ok ? TestStatus.PASSED : TestStatus.FAILED;
            out.add(new TestCase(num + " " + name, status, null, null, m.group(5)));
        }
        for (int n = out.size() + 1; n <= planned; n++) {
            out.add(new TestCase(n + " (planned, not run)", TestStatus.MISSING, null, null, "TAP plan promised " + planned + " tests"));
        }
        return out;
    }
}
