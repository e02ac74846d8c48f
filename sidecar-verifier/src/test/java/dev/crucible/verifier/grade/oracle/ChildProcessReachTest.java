package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process a test starts (a task's CLI test running {@code python -m pkg}: the tree's code, outside the oracle) cannot
 * open the grading process's /proc entries: the initial environment that holds the result channel's nonce, the
 * channel's descriptor (blind grading round 17, x14 read the nonce from /proc/PPID/environ and wrote records on
 * /proc/PPID/fd/3). The test asks for them itself and passes only when each open is refused.
 */
class ChildProcessReachTest {
    @TempDir
    Path dir;

    @Test
    void aChildOfTheGradingProcessCannotOpenItsEnvironmentOrDescriptors() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the grading sandbox: " + Box.availability().problem());
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("tests/test_child.py"), String.join("\n", "import subprocess", "import sys", "", "",
                "PROBE = '''",
                "import os",
                "for what in ('environ', 'fd/3', 'mem'):",
                "    try:",
                "        with open('/proc/%d/%s' % (os.getppid(), what), 'rb') as f:",
                "            print('OPEN', what, b'CRUCIBLE_REPORT_NONCE' in f.read(1 << 16) if what == 'environ' else '')",
                "    except OSError as e:",
                "        print('REFUSED', what, e.errno)",
                "'''", "", "",
                "def test_parent_is_closed_to_its_children():",
                "    out = subprocess.run([sys.executable, '-c', PROBE], capture_output=True, text=True, timeout=60).stdout",
                "    assert 'OPEN' not in out, out",
                "    assert out.count('REFUSED') == 3, out", ""));
        String id = "tests/test_child.py::test_parent_is_closed_to_its_children";
        VerifyReport r = OracleGrades.grade(dir, ws, "", List.of(id));
        OracleGrades.assertEachPassed(r, List.of(id));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(1.0);
    }
}
