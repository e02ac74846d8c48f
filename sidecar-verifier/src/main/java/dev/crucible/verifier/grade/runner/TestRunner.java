package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One test runner the grader can ask for per-test results itself: how to recognise its command, how to
 * rewrite it so it reports in a machine-readable form into a place the grader created fresh, and how to
 * read that back. Test ids are stable strings (the same test has the same id in every run), so
 * failToPass / passToPass lists work for every runner.
 */
public interface TestRunner {
    /** The {@code framework} value naming this runner ({@code go}, {@code cargo}, …). */
    String name();

    /** Whether the last command of a verifier runs this runner. */
    boolean matches(TestCommand c);

    /** As {@link #matches(TestCommand)}, for a runner that must read a file of the tree to tell ({@code python test.py}). */
    default boolean matches(TestCommand c, Path root) { return matches(c); }

    /**
     * The command to run instead, asking for machine output. {@code out} is a folder the grader made
     * just now, empty, in the results directory (the only writable place in the grading sandbox).
     */
    Plan plan(TestCommand c, Path out, Path root);

    /** The tests the run reported, with findings where the report and the runner's own output disagree. */
    Report read(ExecResult run, Path out, Path root);

    /** What a result of this runner rests on (shown in the outcome's details). */
    String guarantee();

    record Plan(String command, Map<String, String> env) {
        public Plan {
            env = env == null ? Map.of() : Map.copyOf(env);
        }
    }

    /**
     * @param error        why no report could be read (null when one was)
     * @param buildFailure the compiler's complaint when the code did not build (CodeRL -1), else null
     */
    record Report(List<TestCase> tests, List<IntegrityFinding> findings, String error, String buildFailure) {
        public Report {
            tests = tests == null ? List.of() : List.copyOf(tests);
            findings = findings == null ? List.of() : List.copyOf(findings);
        }

        static Report error(String why) { return new Report(List.of(), List.of(), why, null); }
    }
}
