package dev.crucible.derive;

import java.util.List;

/**
 * Decides how a verifier reads its result. pytest and the runners the grader knows, run directly, are graded per
 * test; Maven and Gradle leave JUnit XML behind; a wrapper (tox, nox, make, a script, an npm script) is a test
 * suite too, whose runners the grader instruments through the environment. A runner line the grader would
 * rewrite but cannot (piped, in a loop) and lint stay one execution.
 */
final class VerifierShapes {
    /** Runners the sidecar's test-suite grader recognises from the command itself (grade.runner.Runners). */
    private static final java.util.Set<String> PER_TEST_RUNNERS = java.util.Set.of("go test", "cargo test", "cargo hack test", "cargo nextest", "jest", "vitest", "mocha", "node --test", "unittest");

    private VerifierShapes() {
    }

    static DerivedVerifier verifier(String name, List<PlannedStep> steps, boolean lint, Integer jobTimeoutMinutes) {
        String command = ShellScripts.command(steps);
        String type = "execution";
        String framework = null;
        String report = null;
        java.util.Optional<String> runnerLines = lint ? java.util.Optional.empty() : ShellScripts.runnerLines(steps, VerifierShapes::perTest);
        if (runnerLines.isPresent()) {
            command = runnerLines.get(); // several test steps, one runner line each: graded per test, line by line
            type = "test-suite";
        } else if (!lint) {
            if (steps.size() == 1 && CommandClassifier.logicalLines(steps.get(0).commandScript).size() == 1
                    && isPytest(steps.get(0).recognised)) {
                type = "test-suite";
                framework = "pytest";
            } else if (steps.size() == 1 && CommandClassifier.logicalLines(steps.get(0).commandScript).size() == 1
                    && steps.get(0).recognised != null && PER_TEST_RUNNERS.contains(steps.get(0).recognised) && !steps.get(0).commandScript.matches("(?s).*[|;&$`<>].*")) {
                type = "test-suite"; // no framework: the grader recognises the runner and asks it for per-test results
            } else if (steps.size() == 1 && preparedRunner(steps.get(0).commandScript)) {
                type = "test-suite"; // folders made or variables set, then one runner line the grader rewrites
            } else if (steps.size() == 1 && steps.get(0).runnerLast) {
                type = "test-suite"; // a chain ending in the runner: it runs once the commands before it passed
            } else if (steps.stream().allMatch(p -> startsWith(p.recognised, "mvn "))) {
                type = "test-suite";
                framework = "junit-xml";
                report = commonPrefix(steps) + "**/target/surefire-reports/TEST-*.xml";
            } else if (steps.stream().allMatch(p -> startsWith(p.recognised, "gradle "))) {
                type = "test-suite";
                framework = "junit-xml";
                report = commonPrefix(steps) + "**/build/test-results/**/TEST-*.xml";
            } else if (endsInWrapper(command)) {
                // make, tox, nox, a script, an npm script: the grader instruments whatever runners it starts
                // (per test), or grades it as one execution and says so when none reports
                type = "test-suite";
            }
        }
        int timeout = lint ? WorkflowDeriver.DEFAULT_LINT_TIMEOUT_SECONDS : WorkflowDeriver.DEFAULT_TEST_TIMEOUT_SECONDS;
        if (steps.stream().allMatch(p -> p.timeoutMinutes != null)) {
            timeout = steps.stream().mapToInt(p -> p.timeoutMinutes * 60).sum();
        } else if (jobTimeoutMinutes != null && !lint) {
            timeout = jobTimeoutMinutes * 60;
        }
        return new DerivedVerifier(name, type, framework, command, report, timeout,
                steps.stream().map(p -> p.step.number()).toList());
    }

    /**
     * Whether the command's last line runs its tests through something other than a runner the grader rewrites
     * itself: such a line (a {@code go test … | tee log}) is read by that runner's own rules and stays one execution.
     */
    static boolean endsInWrapper(String command) {
        List<String> lines = CommandClassifier.logicalLines(command);
        if (lines.isEmpty()) return false;
        for (String part : lines.get(lines.size() - 1).split("\\|\\|?|&&|;")) {
            CommandClassifier.Classified c = CommandClassifier.classifyLine(part.strip());
            if (c.kind() == CommandKind.TEST && PER_TEST_RUNNERS.contains(c.what())) return false;
        }
        return true;
    }

    /**
     * lazygit: {@code mkdir -p /tmp/code_coverage}, then {@code go test ./... -short -args …}. Lines that neither test
     * nor lint (they make folders, set variables, change folder) and then one plain runner line: the grader keeps the
     * lines before as written and asks the last for per-test results, so the suite is graded test by test. Before,
     * any line ahead of the runner made the whole command one execution.
     */
    static boolean preparedRunner(String script) {
        if (script == null || CommandClassifier.isStructured(script)) return false;
        List<String> lines = CommandClassifier.logicalLines(script);
        if (lines.size() < 2) return false;
        String last = lines.get(lines.size() - 1);
        CommandClassifier.Classified runner = CommandClassifier.classifyLine(last);
        if (runner.kind() != CommandKind.TEST || !perTest(runner.what()) || last.matches("(?s).*[|;&$`<>(){}].*")) return false;
        for (String line : lines.subList(0, lines.size() - 1)) {
            CommandKind k = CommandClassifier.classifyLine(line).kind();
            if (k == CommandKind.TEST || k == CommandKind.LINT) return false; // its results would be lost
        }
        return true;
    }

    private static boolean perTest(String recognised) {
        return isPytest(recognised) || recognised != null && PER_TEST_RUNNERS.contains(recognised);
    }

    private static boolean isPytest(String recognised) {
        return "pytest".equals(recognised) || "py.test".equals(recognised);
    }

    private static boolean startsWith(String s, String prefix) {
        return s != null && s.startsWith(prefix);
    }

    private static String prefix(PlannedStep p) {
        if (p.workingDirectory == null || p.workingDirectory.equals(".") || p.workingDirectory.isBlank()) {
            return "";
        }
        String wd = p.workingDirectory.startsWith("./") ? p.workingDirectory.substring(2) : p.workingDirectory;
        return wd.endsWith("/") ? wd : wd + "/";
    }

    /** The steps' shared working directory as a glob prefix; none when they differ (the glob then covers all). */
    private static String commonPrefix(List<PlannedStep> steps) {
        String first = prefix(steps.get(0));
        return steps.stream().allMatch(p -> prefix(p).equals(first)) ? first : "";
    }
}
