package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.TestCase;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.support.Envs;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A verifier command of several runner lines (as CI writes them: two pytest runs over two folders, the
 * same suite twice under two settings), graded per test line by line with real pytest, through the
 * grader's reporter, in bash.
 */
class MultiLineGradingTest {
    @TempDir
    Path dir;

    static final Map<String, String> REPO = Map.of(
            "pkg/__init__.py", "def double(x):\n    return 2 * x\n",
            "tests/core/test_core.py", "from pkg import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
            "tests/extra/test_extra.py", "import os\nfrom pkg import double\n\n\ndef test_env():\n    assert os.environ.get('MODE') in ('a', 'b')\n\n\n"
                    + "def test_net():\n    import socket\n    socket.create_connection(('192.0.2.1', 80), timeout=1)\n");

    static final String TWO_FOLDERS = """
            if [[ -d tests/core ]]; then echo bash here; fi
            python3 -m pytest -q tests/core
            export MODE=a
            python3 -m pytest -q tests/extra
            """;

    @Test
    void splitsAtRunnerLinesKeepingWhatEachLineRunsAfter() {
        List<String> s = RunnerLines.split(TWO_FOLDERS, dir);
        assertThat(s).hasSize(2);
        assertThat(s.get(0)).isEqualTo("if [[ -d tests/core ]]; then echo bash here; fi\npython3 -m pytest -q tests/core");
        assertThat(s.get(1)).isEqualTo("if [[ -d tests/core ]]; then echo bash here; fi\nexport MODE=a\npython3 -m pytest -q tests/extra");
        assertThat(RunnerLines.split("pytest -q", dir)).isEmpty();
        assertThat(RunnerLines.split("go test ./...\ngo test -tags purego ./...", dir)).hasSize(2);
        assertThat(RunnerLines.split("go test ./... && \\\n  go test -tags purego ./...", dir)).as("chained: one script").isEmpty();
        assertThat(RunnerLines.split("for t in a b; do\n  pytest $t\ndone\npytest c", dir)).as("a loop: one script").isEmpty();
    }

    @Test
    void eachLineIsGradedPerTestAndAnExcludedOfflineTestDoesNotFailTheWhole() {
        VerifyReport r = grade(TWO_FOLDERS + "", "excludedTests: [{id: \"tests/extra/test_extra.py::test_net\", reason: no network}]\n");
        Map<String, String> st = statuses(r);
        assertThat(st).containsEntry("tests/core/test_core.py::test_double", "passed").containsEntry("tests/extra/test_extra.py::test_env", "passed")
                .containsEntry("tests/extra/test_extra.py::test_net", "failed");
        assertThat(r.reward()).as(r.reason() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.details()).containsEntry("runner", "per line");

        VerifyReport notExcluded = grade(TWO_FOLDERS, "");
        assertThat(notExcluded.reward()).isEqualTo(0.0);
        assertThat(notExcluded.reason()).contains("1 of 3 tests did not pass");
    }

    @Test
    void theSameSuiteTwiceKeepsBothResultsApart() {
        VerifyReport r = grade("MODE=a python3 -m pytest -q tests/extra/test_extra.py::test_env\nMODE=c python3 -m pytest -q tests/extra/test_extra.py::test_env\n", "");
        assertThat(statuses(r)).containsEntry("tests/extra/test_extra.py::test_env", "passed")
                .containsEntry("tests/extra/test_extra.py::test_env [line 2]", "failed");
        assertThat(r.reward()).isEqualTo(0.0);
    }

    @Test
    void aLineThatRunsNoTestFailsTheGradeAndSaysWhichLine() {
        VerifyReport r = grade("python3 -m pytest -q tests/core\npython3 -m pytest -q tests/missing_folder\n", "");
        assertThat(r.reward()).isEqualTo(0.0);
        assertThat(r.reason()).startsWith("line 2 (python3 -m pytest -q tests/missing_folder)");
    }

    private VerifyReport grade(String command, String extra) {
        Path d = dir.resolve("env-" + Integer.toHexString(command.hashCode() ^ extra.hashCode()));
        String yaml = "type: test-suite\ncommand: |\n" + command.lines().map(l -> "  " + l + "\n").reduce("", String::concat) + extra;
        return Envs.grade(Envs.make(d, yaml, REPO));
    }

    private static Map<String, String> statuses(VerifyReport r) {
        Map<String, String> m = new LinkedHashMap<>();
        for (TestCase t : r.tests().details()) m.put(t.id(), t.status().json());
        return m;
    }
}
