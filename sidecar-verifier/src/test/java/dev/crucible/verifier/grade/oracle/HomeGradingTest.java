package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.Episode;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One HOME for the agent's box, the grading box and the isolated oracle's workers (probemeasure, pallets/click's
 * test_expand_args: the trusted side's HOME was results-1/home, the worker's /tmp/home, so {@code user in
 * _expand_args(["~"])} failed at grading only). The tree expands {@code ~} in its worker as click's {@code _expand_args}
 * does; the test compares it with its own expansion on the trusted side. Graded end to end (Episode, the real grading
 * sandbox, the oracle's workers), each test isolated.
 */
class HomeGradingTest {
    @TempDir Path dir;

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.ok(), "bubblewrap is needed for the grading sandbox and the oracle's workers: " + a.problem());
    }

    private static final String PATHS = """
            import os


            def expand_args(args):
                # click.utils._expand_args: user and variable expansion of each argument
                return [os.path.expanduser(os.path.expandvars(a)) for a in args]


            def home():
                return os.environ.get("HOME")
            """;

    private static final String TESTS = """
            import os

            from calc.paths import expand_args, home


            def test_home_is_the_agents_box_home():
                # the agent's box has HOME=/tmp/home; grading's trusted side sees the same
                assert os.environ["HOME"] == "/tmp/home", os.environ["HOME"]


            def test_expand_args_matches_the_tests_own_expansion():
                user = os.path.expanduser("~")
                assert user in expand_args(["~"])


            def test_the_code_under_test_sees_the_same_home():
                assert home() == os.environ["HOME"]
            """;

    private static final List<String> IDS = List.of("tests/test_home.py::test_home_is_the_agents_box_home",
            "tests/test_home.py::test_expand_args_matches_the_tests_own_expansion",
            "tests/test_home.py::test_the_code_under_test_sees_the_same_home");

    @Test
    void theTrustedSideAndTheWorkerShareTheAgentsHome() {
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("calc/paths.py"), PATHS);
        Fixtures.write(ws.resolve("tests/test_home.py"), TESTS);
        VerifyReport r = OracleGrades.grade(dir, ws, OracleGrades.PYTEST, "", List.of(), IDS, 120, dir.resolve("state"));
        String why = r.reason() + " " + r.tests().details();
        OracleGrades.assertEachPassed(r, IDS);
        assertThat(r.tests().details()).as("graded through the isolated oracle: the tree's HOME is its worker's")
                .allMatch(t -> TestCase.ISOLATED.equals(t.integrity()));
        assertThat(r.hackFindings()).as(why).noneMatch(f -> f.isHack());
        assertThat(r.reward()).as(why).isEqualTo(1.0);
    }
}
