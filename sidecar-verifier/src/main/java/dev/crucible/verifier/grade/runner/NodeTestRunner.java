package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code node --test}: the grader replaces any reporter with {@code --test-reporter=tap
 * --test-reporter-destination=stdout} and reads node's nested TAP. Ids are the test names from the
 * outermost down, joined by {@code " > "} ({@code group > inner}); suites are not tests. node runs test
 * files in child processes and turns their own stdout into {@code #} comments, so a test printing
 * {@code ok 1} cannot add a result. The lines are checked against node's closing counts
 * ({@code # pass}, {@code # fail}, {@code # skipped}, {@code # todo}) and its exit code.
 */
public final class NodeTestRunner implements TestRunner {
    static final Pattern SUBTEST = Pattern.compile("^(\\s*)# Subtest: (.*)$");
    static final Pattern RESULT = Pattern.compile("^(\\s*)(not ok|ok) \\d+(?: - (.*?))?(?: # (SKIP|TODO|skip|todo)\\b.*)?$");
    static final Pattern COUNT = Pattern.compile("^# (tests|suites|pass|fail|cancelled|skipped|todo) (\\d+)$");

    @Override public String name() { return "node-test"; }

    @Override
    public boolean matches(TestCommand c) {
        return c.program().equals("node") && c.words().contains("--test");
    }

    @Override
    public Plan plan(TestCommand c, Path out, Path root) {
        List<String> w = new ArrayList<>();
        for (int i = 0; i < c.words().size(); i++) {
            String a = c.words().get(i);
            if (a.equals("--test-reporter") || a.equals("--test-reporter-destination")) {
                i++;
                continue;
            }
            if (a.startsWith("--test-reporter=") || a.startsWith("--test-reporter-destination=")) continue;
            w.add(a);
            if (a.equals("--test")) {
                w.add("--test-reporter=tap");
                w.add("--test-reporter-destination=stdout");
            }
        }
        return new Plan(c.with(w), Map.of());
    }

    @Override
    public String guarantee() {
        return "node --test: node's TAP reporter on its stdout (a pipe the grader reads; tests' own output arrives as comments), checked against its closing counts and exit code";
    }

    @Override
    public Report read(ExecResult run, Path out, Path root) {
        List<String> stack = new ArrayList<>();
        List<TestCase> tests = new ArrayList<>();
        List<Boolean> suite = new ArrayList<>();
        List<String> todo = new ArrayList<>();
        Map<String, Integer> printed = new LinkedHashMap<>();
        StringBuilder yaml = null;
        int yamlFor = -1;
        for (String line : run.stdout().split("\n")) {
            if (yaml != null) {
                if (line.strip().equals("...")) {
                    finishYaml(tests, suite, yamlFor, yaml.toString());
                    yaml = null;
                } else if (yaml.length() < 4_000) {
                    yaml.append(line.strip()).append('\n');
                }
                continue;
            }
            Matcher m;
            if ((m = SUBTEST.matcher(line)).matches()) {
                int d = m.group(1).length() / 4;
                while (stack.size() > d) stack.remove(stack.size() - 1);
                while (stack.size() < d) stack.add("?");
                stack.add(m.group(2));
            } else if ((m = RESULT.matcher(line)).matches()) {
                int d = m.group(1).length() / 4;
                while (stack.size() > d) stack.remove(stack.size() - 1);
                List<String> path = new ArrayList<>(stack);
                path.add(m.group(3) == null ? "test" : m.group(3));
                String directive = m.group(4) == null ? "" : m.group(4).toUpperCase();
                boolean ok = m.group(2).equals("ok");
                TestStatus s = directive.equals("SKIP") ? TestStatus.SKIPPED
                        : directive.equals("TODO") ? (ok ? TestStatus.XPASSED : TestStatus.XFAILED)
                        : ok ? TestStatus.PASSED : TestStatus.FAILED;
                tests.add(new TestCase(String.join(" > ", path), s, null, null, null));
                suite.add(false);
                todo.add(directive);
                yamlFor = tests.size() - 1;
            } else if (line.strip().equals("---") && yamlFor >= 0) {
                yaml = new StringBuilder();
            } else if ((m = COUNT.matcher(line)).matches()) {
                printed.put(m.group(1), Integer.parseInt(m.group(2))); // the last of each wins: node prints them last
            }
        }
        List<TestCase> result = new ArrayList<>();
        int pass = 0, fail = 0, skipped = 0, todos = 0;
        for (int i = 0; i < tests.size(); i++) {
            if (suite.get(i)) continue;
            TestCase t = tests.get(i);
            result.add(t);
            if (todo.get(i).equals("TODO")) todos++;
            else if (t.status() == TestStatus.PASSED) pass++;
            else if (t.status() == TestStatus.FAILED) fail++;
            else if (t.status() == TestStatus.SKIPPED) skipped++;
        }
        if (result.isEmpty() && printed.isEmpty()) {
            return Report.error("node --test printed no TAP results (exit " + run.exitCode() + "): " + ReportChecks.clip(run.combined()));
        }
        List<IntegrityFinding> findings = new ArrayList<>();
        if (printed.containsKey("pass")) {
            Map<String, Integer> printedCounts = new LinkedHashMap<>();
            printedCounts.put("pass", printed.get("pass"));
            printedCounts.put("fail", printed.getOrDefault("fail", 0) + printed.getOrDefault("cancelled", 0));
            printedCounts.put("skipped", printed.getOrDefault("skipped", 0));
            printedCounts.put("todo", printed.getOrDefault("todo", 0));
            findings.addAll(ReportChecks.compareCounts("node-test",
                    Map.of("pass", pass, "fail", fail, "skipped", skipped, "todo", todos), printedCounts));
        } else {
            findings.addAll(ReportChecks.compareCounts("node-test", Map.of(), null));
        }
        findings.addAll(ReportChecks.exitCode("node-test", run, result));
        return new Report(ReportChecks.uniqueIds(result), findings, null, null);
    }

    private static void finishYaml(List<TestCase> tests, List<Boolean> suite, int i, String yaml) {
        if (yaml.contains("type: 'suite'")) suite.set(i, true);
        TestCase t = tests.get(i);
        if (t.status() != TestStatus.PASSED) {
            int e = yaml.indexOf("error:");
            String msg = e < 0 ? yaml : yaml.substring(e);
            int stack = msg.indexOf("\nstack:");
            tests.set(i, new TestCase(t.id(), t.status(), null, null, ReportChecks.clip(stack < 0 ? msg : msg.substring(0, stack))));
        }
    }
}
