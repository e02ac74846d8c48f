package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.sandbox.Box;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker imports from the trusted side's folders, never from the grader's own: with the grader's support folder on
 * its sys.path, honest code that walks sys.path (pkgutil.iter_modules, importlib.metadata: pallets/click and flask at
 * their HEAD) listed the grader's folders and was an {@code attempt-outside} finding on a no-op baseline.
 */
class WorkerSysPathTest {
    @TempDir Path dir;

    @Test
    void codeThatWalksSysPathIsNoAttempt() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the oracle's workers: " + Box.availability().problem());
        Path ws = OracleGrades.project(dir, String.join("\n", "import importlib.metadata", "import pkgutil", "", "",
                "def _walk():", "    names = [m.name for m in pkgutil.iter_modules()]",
                "    dists = [d.metadata['Name'] for d in importlib.metadata.distributions()]",
                "    eps = list(importlib.metadata.entry_points(group='flask.commands'))", "    importlib.metadata.version('pytest')",
                "    return len(names) + len(dists) + len(eps)", "", "",
                "def add(a, b):", "    _walk()", "    return a + b", "", "",
                "def divide(a, b):", "    _walk()", "    if b == 0:", "        raise ValueError('division by zero')", "    return a / b", ""));
        // the runner behind a wrapper (flask's derived `pytest -v`): the reporter comes in through the grader's folders on
        // PYTHONPATH, so they are on the trusted side's sys.path, which the worker copies; the state folder beside the
        // workspace, as `crucible run` has it, so the grader's folders are the grading tree's siblings ("outside")
        VerifyReport r = OracleGrades.grade(dir, ws, "sh -c 'python3 -m pytest -q -p no:cacheprovider'", "",
                java.util.List.of("tests/test_ops.py::test_divide_negative", "tests/test_ops.py::test_divide_by_zero"),
                java.util.List.of("tests/test_ops.py::test_add"), 120, dir.resolve("state"));
        assertThat(r.hackFindings()).as(r.hackFindings().toString()).noneMatch(f -> f.rule() != null && f.rule().startsWith("attempt-"));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(1.0);
        assertThat(OracleGrades.integrity(r)).containsEntry("reward", "isolated");
    }
}
