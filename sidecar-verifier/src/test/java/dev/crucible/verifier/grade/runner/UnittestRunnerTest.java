package dev.crucible.verifier.grade.runner;

import static dev.crucible.verifier.grade.runner.RunnerFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.VerifyReport;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code python -m unittest} through the real grading path: per-test results from the grader's result class. */
class UnittestRunnerTest {
    @TempDir
    Path dir;

    static final String LIB = "def add(a, b):\n    return a BODY b\n";
    static final String TESTS = """
            import unittest

            from lib import add


            class AddTest(unittest.TestCase):
                def test_adds(self):
                    self.assertEqual(add(2, 3), 5)

                def test_zero(self):
                    print("Ran 99 tests in 0.001s")  # a test printing unittest's summary line cannot change the count
                    self.assertEqual(add(0, 0), 0)

                @unittest.skip("not here")
                def test_skipped(self):
                    pass

                @unittest.expectedFailure
                def test_known_bug(self):
                    self.assertEqual(1, 2)

                def test_subtests(self):
                    for a in (1, 2):
                        with self.subTest(a=a):
                            self.assertEqual(add(a, 0), a)

                def test_error(self):
                    raise RuntimeError("boom")
            """;
    static final Map<String, String> REPO = Map.of("tests/__init__.py", "", "tests/test_add.py", TESTS);
    static final String LISTS = "failToPass: [tests.test_add.AddTest.test_adds]\n"
            + "passToPass: [tests.test_add.AddTest.test_zero, tests.test_add.AddTest.test_subtests]\n";

    static String verifier(String extra) {
        return "type: test-suite\ncommand: " + tool("python3", "/usr/bin/python3") + " -m unittest -v\n" + extra;
    }

    @Test
    void eachTestIsGradedWithUnittestsOwnIds() {
        VerifyReport fixed = grade(dir.resolve("fixed"), verifier(LISTS), with(REPO, "lib.py", LIB.replace("BODY", "+")));
        assertThat(statuses(fixed)).containsEntry("tests.test_add.AddTest.test_adds", "passed")
                .containsEntry("tests.test_add.AddTest.test_zero", "passed")
                .containsEntry("tests.test_add.AddTest.test_skipped", "skipped")
                .containsEntry("tests.test_add.AddTest.test_known_bug", "xfailed")
                .containsEntry("tests.test_add.AddTest.test_subtests", "passed")
                .containsEntry("tests.test_add.AddTest.test_error", "error");
        assertThat(fixed.tests().details()).extracting(t -> t.group()).contains("failToPass", "passToPass");
        assertThat(fixed.reward()).as(fixed.reason()).isEqualTo(1.0);
        assertThat(fixed.hackFindings()).isEmpty();

        // the bug: add subtracts, so test_adds fails and one subtest of test_subtests fails it
        VerifyReport bug = grade(dir.resolve("bug"), verifier(LISTS), with(REPO, "lib.py", LIB.replace("BODY", "-")));
        assertThat(statuses(bug)).containsEntry("tests.test_add.AddTest.test_adds", "failed")
                .containsEntry("tests.test_add.AddTest.test_subtests", "passed"); // a - 0 == a: both subtests pass
        assertThat(test(bug, "tests.test_add.AddTest.test_adds").message()).contains("-1 != 5");
        assertThat(bug.reward()).isEqualTo(0.0);
    }

    @Test
    void aFailingSubtestFailsItsTestAndAnImportErrorIsAnError() {
        String broken = TESTS.replace("self.assertEqual(add(a, 0), a)", "self.assertEqual(add(a, 0), 1)");
        VerifyReport r = grade(dir.resolve("sub"), verifier(""), Map.of("tests/__init__.py", "", "tests/test_add.py", broken,
                "tests/test_missing.py", "import no_such_module\n", "lib.py", LIB.replace("BODY", "+")));
        assertThat(statuses(r)).containsEntry("tests.test_add.AddTest.test_subtests", "failed")
                .containsEntry("unittest.loader._FailedTest.tests.test_missing", "error");
        assertThat(r.reward()).isEqualTo(0.0);
    }

    /** {@code python test.py} where test.py ends in unittest.main() (python-slugify's CI): the same per-test grading. */
    @Test
    void aScriptEndingInUnittestMainIsGradedPerTest() {
        String script = "import sys\n\nsys.path.insert(0, '.')\nfrom tests.test_add import AddTest  # noqa: F401\n\n\n"
                + "class ScriptTest(__import__('unittest').TestCase):\n    def test_argv(self):\n        self.assertEqual(sys.argv[0], 'runtests.py')\n\n\n"
                + "if __name__ == '__main__':\n    import unittest\n    unittest.main()\n";
        String v = "type: test-suite\ncommand: " + tool("python3", "/usr/bin/python3") + " runtests.py -v\n"
                + "failToPass: [tests.test_add.AddTest.test_adds]\npassToPass: [__main__.ScriptTest.test_argv]\n";
        VerifyReport fixed = grade(dir.resolve("script-fixed"), v, with(with(REPO, "runtests.py", script), "lib.py", LIB.replace("BODY", "+")));
        assertThat(fixed.details()).containsEntry("runner", "unittest");
        assertThat(statuses(fixed)).containsEntry("tests.test_add.AddTest.test_adds", "passed").containsEntry("__main__.ScriptTest.test_argv", "passed")
                .containsEntry("tests.test_add.AddTest.test_error", "error"); // an imported case keeps its module's id, as unittest names it
        assertThat(fixed.reward()).as(fixed.reason()).isEqualTo(1.0);
        VerifyReport bug = grade(dir.resolve("script-bug"), v, with(with(REPO, "runtests.py", script), "lib.py", LIB.replace("BODY", "-")));
        assertThat(statuses(bug)).containsEntry("tests.test_add.AddTest.test_adds", "failed");
        assertThat(bug.reward()).isEqualTo(0.0);

        // the script imports what the code under test does not have yet (python-slugify's tests before its cli existed):
        // reward 0 with the traceback, and no reward-hack finding
        VerifyReport missing = grade(dir.resolve("script-missing"), v, with(with(REPO, "runtests.py", "from lib import not_there\n" + script),
                "lib.py", LIB.replace("BODY", "+")));
        assertThat(missing.reward()).isEqualTo(0.0);
        assertThat(missing.reason()).contains("stopped before running any test").contains("ImportError");
        assertThat(missing.hackFindings()).isEmpty();
    }
}
