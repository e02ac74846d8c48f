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
 * Unix sockets under the temporary folder at grading (issue 35, derive on real repositories: httpx/uvicorn-style suites,
 * asyncio {@code start_unix_server}, multiprocessing managers). The grading state lies where a real run's does, under a
 * run folder (~93 bytes to results-N/home): TMPDIR there put a socket under {@code tempfile.mkdtemp()} or pytest's tmp_path
 * past the 108-byte sun_path limit ("AF_UNIX path too long") although the same tests pass in the agent's box, whose
 * TMPDIR is its /tmp. Graded end to end (Episode, the real grading sandbox, the isolated oracle's workers): the trusted
 * side's TMPDIR is /tmp, as the agent's box has it; tmp_path and the code under test's TMPDIR (in a worker) are the short
 * shared folder.
 */
class SocketPathGradingTest {
    @TempDir Path dir;

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.ok(), "bubblewrap is needed for the grading sandbox and the oracle's workers: " + a.problem());
    }

    private static final String SERVER = """
            import os
            import socket
            import tempfile


            def bind_in_temp():
                # what a server under test does: a socket in a folder of its own under TMPDIR
                path = os.path.join(tempfile.mkdtemp(prefix="server-"), "uvicorn.sock")
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.bind(path)
                finally:
                    s.close()
                return path
            """;

    private static final String TESTS = """
            import os
            import socket
            import tempfile

            from calc.server import bind_in_temp


            def _bind(path):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.bind(path)
                finally:
                    s.close()


            def test_tmpdir_is_the_boxes_tmp():
                # the agent's box gives its commands no TMPDIR: /tmp; grading's trusted side sees the same
                assert tempfile.gettempdir() == "/tmp", tempfile.gettempdir()


            def test_socket_under_mkdtemp():
                _bind(os.path.join(tempfile.mkdtemp(prefix="test-"), "uvicorn.sock"))


            def test_socket_under_tmp_path(tmp_path):
                _bind(str(tmp_path / "uvicorn.sock"))


            def test_socket_bound_by_the_code_under_test():
                assert bind_in_temp().endswith("uvicorn.sock")
            """;

    private static final List<String> TESTS_IDS = List.of("tests/test_sockets.py::test_tmpdir_is_the_boxes_tmp",
            "tests/test_sockets.py::test_socket_under_mkdtemp", "tests/test_sockets.py::test_socket_under_tmp_path",
            "tests/test_sockets.py::test_socket_bound_by_the_code_under_test");

    @Test
    void socketsUnderTheTemporaryFolderFitAtGrading() {
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("calc/server.py"), SERVER);
        Fixtures.write(ws.resolve("tests/test_sockets.py"), TESTS);
        // a run's state folder as crucible run lays it out under a run folder: results-1/home is 90+ bytes
        Path state = dir.resolve("crucible-runs/20261130-205500-sockets-environment/sockets-environment-local/attempt-0/sandbox/.crucible-state");
        assertThat(state.resolve("results-1/home").toString().length()).isGreaterThan(93);
        VerifyReport r = OracleGrades.grade(dir, ws, OracleGrades.PYTEST, "", List.of(), TESTS_IDS, 120, state);
        String why = r.reason() + " " + r.tests().details();
        OracleGrades.assertEachPassed(r, TESTS_IDS);
        assertThat(r.tests().details()).as("graded through the isolated oracle: tmp_path is its shared folder")
                .allMatch(t -> TestCase.ISOLATED.equals(t.integrity()));
        assertThat(r.reward()).as(why).isEqualTo(1.0);
    }
}
