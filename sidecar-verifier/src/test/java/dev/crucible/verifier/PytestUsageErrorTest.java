package dev.crucible.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
import dev.crucible.verifier.support.SandboxedGrading;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * pytest's usage error (exit 4: an {@code addopts} option of a plugin that is not installed, browser-use's
 * {@code --dist=loadscope} without xdist) ends pytest before its session begins. Graded directly and through a
 * wrapper script, real pytest in bubblewrap: the run reports no tests and says it was a usage error, with no
 * tampering finding; a project whose tests run but one exits the interpreter mid-run still gets the finding.
 */
class PytestUsageErrorTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"python3 -m pytest -q", "sh run-tests.sh"})
    void unknownOptionFromAddoptsIsAUsageErrorNotTampering(String command) {
        project("addopts = \"--crucible-no-such-option\"\n", "def test_ok():\n    assert True\n");
        VerifyReport r = grade(command);
        assertThat(r.reward()).isZero();
        assertThat(r.hackFindings()).as(r.hackFindings().toString()).allSatisfy(f -> assertThat(f.severity()).isEqualTo("info"));
        assertThat(r.reason()).as(r.reason()).contains("stopped before its session began (exit code 4, pytest's usage error")
                .contains("unrecognized arguments: --crucible-no-such-option");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"python3 -m pytest -q", "sh run-tests.sh"})
    void anExitAfterCollectionIsStillAFinding(String command) {
        project("", "import os\n\ndef test_ok():\n    assert True\n\ndef test_exit():\n    os._exit(4)\n\ndef test_later():\n    assert False\n");
        VerifyReport r = grade(command);
        assertThat(r.reward()).isZero();
        assertThat(r.hackFindings()).as(r.hackFindings().toString())
                .anySatisfy(f -> assertThat(f.evidence()).contains("never reached the end of its session"));
    }

    private void project(String ini, String tests) {
        Path ws = dir.resolve("workspace");
        Fixtures.write(ws.resolve("pyproject.toml"), "[tool.pytest.ini_options]\n" + ini);
        Fixtures.write(ws.resolve("run-tests.sh"), "set -e\npython3 -m pytest -q\n");
        Fixtures.write(ws.resolve("tests/test_a.py"), tests);
    }

    private VerifyReport grade(String command) {
        Fixtures.write(dir.resolve("env.yaml"), """
                kind: RLEnvironment
                metadata: {name: usage-error}
                spec:
                  workspace: {path: ./workspace}
                  verifier:
                    command: %s
                    protectedPaths: ["tests/**"]
                    timeoutSeconds: 120
                """.formatted(command));
        Environment env = Environment.load(dir.resolve("env.yaml"));
        EpisodeOptions o = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(500), Duration.ofMillis(200)).withExecutor(new SandboxedGrading());
        try (Episode ep = new Episode(env, dir.resolve("workspace"), o)) {
            ep.reset();
            return ep.verify();
        }
    }
}
