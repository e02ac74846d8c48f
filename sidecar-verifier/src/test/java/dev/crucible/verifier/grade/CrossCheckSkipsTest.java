package dev.crucible.verifier.grade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the cross-check run leaves out ({@link IsolatedVerdicts#uncheckable}): only tests whose verdict it cannot change
 * under the AND rule (failed as graded) or that change no reward (outside FAIL_TO_PASS/PASS_TO_PASS, excluded), and never
 * one whose id would drop a counted test by pytest's prefix match. Every counted pass is still cross-checked.
 */
class CrossCheckSkipsTest {
    private static final VerifierSpec PYTEST = new VerifierSpec("test-suite", "python3 -m pytest -q", null, null, null, null, null, null, null,
            null, null, null, null, null, null, null);

    @Test
    void failedAndUncountedTestsAreLeftOutCountedPassesAreNot() {
        Outcome graded = outcome(List.of(
                t("t.py::test_fixed", TestStatus.PASSED, "failToPass"),
                t("t.py::test_kept", TestStatus.PASSED, "passToPass"),
                t("t.py::test_broken", TestStatus.FAILED, "passToPass"),
                t("t.py::test_other", TestStatus.PASSED, "other"),
                t("t.py::test_excluded", TestStatus.PASSED, TestSuiteStrategy.EXCLUDED)));
        assertThat(IsolatedVerdicts.uncheckable(PYTEST, graded)).containsExactlyInAnyOrder("t.py::test_broken", "t.py::test_other", "t.py::test_excluded");
    }

    @Test
    void withoutNamedTestsEveryPassIsCheckedAndAPrefixOfACountedTestIsNeverDeselected() {
        Outcome graded = outcome(List.of(
                t("t.py::test_a", TestStatus.FAILED, "other"),
                t("t.py::test_a[1]", TestStatus.PASSED, "other"),
                t("t.py::test_ab", TestStatus.PASSED, "other"),
                t("t.py::test_c", TestStatus.FAILED, "other"),
                t("t.py::test_d", TestStatus.PASSED, "other")));
        // test_a failed, but `--deselect t.py::test_a` would also drop test_a[1] and test_ab, which count
        assertThat(IsolatedVerdicts.uncheckable(PYTEST, graded)).containsExactly("t.py::test_c");
    }

    private static TestCase t(String id, TestStatus s, String group) {
        return new TestCase(id, s, group, null, null, TestCase.ISOLATED);
    }

    private static Outcome outcome(List<TestCase> tests) {
        return new Outcome("test-suite", 0.5, "partial", "tests-failed", null, 0.5, tests, Map.of(), 0, List.of());
    }
}
