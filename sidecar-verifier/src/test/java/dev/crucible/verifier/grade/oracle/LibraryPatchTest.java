package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test that patches a module or class the worker imports a copy of (the standard library's, a library's) is graded
 * in-process: its patch never reached the code under test, which ran the real thing (pallets/flask at HEAD monkeypatches
 * werkzeug.serving.run_simple and calls app.run(); isolated, a real server started in the worker and the honest tree
 * failed). A patch of the test's own module stays isolated.
 */
class LibraryPatchTest {
    @TempDir Path dir;

    @Test
    void aTestThatPatchesALibraryTheTreeUsesIsGradedInProcessAndPasses() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the oracle's workers: " + Box.availability().problem());
        Path ws = OracleGrades.project(dir, String.join("\n", "import time", "", "", "def add(a, b):", "    return a + b", "", "",
                "def divide(a, b):", "    if b == 0:", "        raise ValueError('division by zero')", "    return a / b", "", "",
                "def stamp():", "    return int(time.time())", ""));
        Fixtures.write(ws.resolve("tests/test_clock.py"), String.join("\n", "import time", "from unittest import mock", "",
                "from calc.ops import add, stamp", "", "LIMIT = 3", "", "",
                "def test_monkeypatched_clock(monkeypatch):", "    monkeypatch.setattr(time, 'time', lambda: 1000.5)",
                "    assert stamp() == 1000", "", "",
                "def test_mock_patched_clock():", "    with mock.patch('time.time', return_value=7.0):", "        assert stamp() == 7", "", "",
                "def test_own_module_patched(monkeypatch):", "    import sys", "    monkeypatch.setattr(sys.modules[__name__], 'LIMIT', 5)",
                "    assert add(LIMIT, 1) == 6", ""));
        List<String> f2p = List.of("tests/test_clock.py::test_monkeypatched_clock", "tests/test_clock.py::test_mock_patched_clock",
                "tests/test_clock.py::test_own_module_patched");
        VerifyReport r = OracleGrades.grade(dir, ws, "inProcessVerdicts: trusted", f2p); // by default such passes earn nothing
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.hackFindings()).isEqualTo(1.0);
        assertThat(r.tests().details()).filteredOn(t -> f2p.contains(t.id())).allSatisfy(t -> assertThat(t.status()).isEqualTo(TestStatus.PASSED));
        assertThat(r.tests().details()).filteredOn(t -> t.id().endsWith("_clock")).as(r.tests().details().toString())
                .hasSize(2).allSatisfy(t -> assertThat(t.integrity()).isEqualTo(TestCase.IN_PROCESS));
        assertThat(r.tests().details()).filteredOn(t -> t.id().endsWith("test_own_module_patched")).singleElement()
                .satisfies(t -> assertThat(t.integrity()).isEqualTo(TestCase.ISOLATED));
        assertThat(r.hackFindings()).as(r.hackFindings().toString()).allSatisfy(f -> assertThat(f.severity()).isEqualTo("info"));
    }
}
