package dev.crucible.verifier.grade.runner;

import static dev.crucible.verifier.grade.runner.RunnerFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.VerifyReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 (derive on real repositories): grading on this host without a box (no bubblewrap, as in a CI container without
 * user namespaces) had TMPDIR in the results folder, ~93 bytes deep under a run's folder, so a unix socket a test binds
 * under {@code tempfile.mkdtemp()} passed the 108-byte sun_path limit ("AF_UNIX path too long") where CI's /tmp is short.
 * Now TMPDIR is a short link in /tmp to that folder, and the link is gone once grading is done.
 */
class HostTmpSocketTest {
    @TempDir
    Path dir;

    static final Map<String, String> REPO = Map.of("tests/test_sock.py", """
            import os
            import socket
            import tempfile


            def test_socket_under_mkdtemp():
                path = os.path.join(tempfile.mkdtemp(prefix="server-"), "uvicorn-1234567890.sock")
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.bind(path)
                finally:
                    s.close()


            def test_tmpdir_is_short_and_writable():
                assert os.environ["TMPDIR"].startswith("/tmp/crucible-tmp-"), os.environ["TMPDIR"]
                assert tempfile.gettempdir() == os.environ["TMPDIR"]
                with open(os.path.join(tempfile.gettempdir(), "x"), "w") as f:
                    f.write("x")
            """);

    @Test
    void aSocketUnderTheTemporaryFolderBindsInUnboxedGrading() throws Exception {
        // a run's folder as crucible run lays it out: the results' home is past 100 bytes
        Path deep = dir.resolve("crucible-runs/20261201-083000-sockets-environment/sockets-environment-local/attempt-0");
        String v = "type: test-suite\ncommand: " + tool("python3", "/usr/bin/python3") + " -m pytest -q tests\n";
        var env = dev.crucible.verifier.support.Envs.make(deep, v, REPO);
        VerifyReport r;
        try (var ep = new dev.crucible.verifier.Episode(env, env.workspacePath().orElseThrow(), dev.crucible.verifier.EpisodeOptions.defaults()
                .withIntervals(java.time.Duration.ofMillis(500), java.time.Duration.ofMillis(200)).withGradingExecutor(new dev.crucible.verifier.exec.LocalExecutor()))) {
            ep.reset();
            r = ep.verify();
        }
        assertThat(statuses(r)).as(r.reason() + " " + r.tests().details()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "tests/test_sock.py::test_socket_under_mkdtemp", "passed", "tests/test_sock.py::test_tmpdir_is_short_and_writable", "passed"));
        try (var links = Files.list(Path.of("/tmp"))) {
            assertThat(links.filter(p -> p.getFileName().toString().startsWith("crucible-tmp-") && Files.isSymbolicLink(p))
                    .map(p -> { try { return Files.readSymbolicLink(p).toString(); } catch (java.io.IOException e) { return ""; } })
                    .filter(t -> t.startsWith(dir.toString()))).as("the link is removed after grading").isEmpty();
        }
    }
}
