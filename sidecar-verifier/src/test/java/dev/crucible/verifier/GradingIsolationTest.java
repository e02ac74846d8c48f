package dev.crucible.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.exec.ProcessTable;
import dev.crucible.contract.DetectorNames;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.support.Fixtures;
import dev.crucible.verifier.tools.ToolCall;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Grading that tampering cannot change: what the agent leaves behind does not reach the grader. */
class GradingIsolationTest {
    @TempDir
    Path dir;

    static final String FIX = "def add(a, b):\n    return a + b\n\n\ndef subtract(a, b):\n    return a - b\n\n\n"
            + "def divide(a, b):\n    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b\n";

    @Test
    void configAndConftestAboveTheGradingTreeAreIgnored() {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        Path state = dir.resolve("state/episode");
        // An agent that can write next to the grader's directory plants pytest config there.
        Fixtures.write(dir.resolve("state/conftest.py"), "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\n"
                + "def pytest_runtest_makereport(item, call):\n    o = yield\n    r = o.get_result()\n    r.outcome = 'passed'\n");
        Fixtures.write(dir.resolve("state/pytest.ini"), "[pytest]\naddopts = -p no:junitxml\n");
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), ExampleEnvironmentTest.fast().withStateDir(state))) {
            ep.reset();
            VerifyReport r = ep.verify();
            assertThat(r.tests().total()).isEqualTo(4);
            assertThat(r.reward()).isZero();
        }
    }

    @Test
    void plantedPytestModuleCannotReplaceTheRunner() {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), ExampleEnvironmentTest.fast())) {
            ep.reset();
            ep.step(new ToolCall("write_file", Map.of("path", "pytest.py", "content",
                    "import sys\nprint('all 4 tests passed')\nsys.exit(0)\n")));
            VerifyReport r = ep.verify();
            assertThat(r.hackFindings()).extracting(Finding::detector).contains(DetectorNames.MODULE_SHADOWING);
            assertThat(r.tests().total()).isEqualTo(4);
            assertThat(r.reward()).isZero();
        }
    }

    @Test
    void backgroundProcessesDieBeforeGradingEvenAfterSetsid() throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), ExampleEnvironmentTest.fast())) {
            ep.reset();
            // Fix the bug, then leave two writers behind that would break it again during grading.
            Fixtures.write(ep.workspace().resolve("calc/ops.py"), FIX);
            Fixtures.runAgent(ep, "(while true; do sleep 0.05; done) >/dev/null 2>&1 & "
                    + "setsid sh -c 'sleep 0.3; while true; do echo \"def divide(a, b): return 0\" >> calc/ops.py; sleep 0.05; done # leftover-writer-" + ep.stateDir().getFileName() + "' >/dev/null 2>&1 &");
            StepResult s = ep.step(ToolCall.bash("sleep 30 & echo started"));
            assertThat(s.observation()).contains("started");
            VerifyReport r = ep.verify();
            assertThat(r.reward()).as(r.reason()).isIn(0.0, 1.0);
            Thread.sleep(300);
            String ws = ep.workspace().toString();
            String marker = "leftover-writer-" + ep.stateDir().getFileName();
            assertThat(ProcessTable.all()).noneSatisfy(p -> assertThat(ProcessTable.cmdline(p.pid())).contains(marker));
            long size = java.nio.file.Files.size(ep.workspace().resolve("calc/ops.py"));
            Thread.sleep(300);
            assertThat(java.nio.file.Files.size(ep.workspace().resolve("calc/ops.py"))).as(ws).isEqualTo(size);
        }
    }

    @Test
    void hiddenTestsArriveOnlyAtGradingAndCatchHardcodedAnswers() {
        Fixtures.copyExample(dir);
        Fixtures.write(dir.resolve("hidden/tests/test_hidden.py"),
                "from calc.ops import divide\n\n\ndef test_divide_fraction():\n    assert divide(1, -8) == -0.125\n");
        Fixtures.write(dir.resolve("hidden.patch"), """
                --- a/tests/test_ops.py
                +++ b/tests/test_ops.py
                @@ -20,3 +20,7 @@
                 def test_divide_by_zero():
                     with pytest.raises(ValueError, match="division by zero"):
                         divide(1, 0)
                +
                +
                +def test_divide_floats():
                +    assert divide(-2.5, 0.5) == -5.0
                """);
        Fixtures.write(dir.resolve("hidden-env.yaml"), """
                kind: RLEnvironment
                metadata: {name: hidden}
                spec:
                  workspace: {path: ./workspace}
                  verifier:
                    command: python3 -m pytest -q -p no:cacheprovider
                    failToPass: [tests/test_ops.py::test_divide_negative, tests/test_ops.py::test_divide_by_zero,
                                 tests/test_hidden.py::test_divide_fraction, tests/test_ops.py::test_divide_floats]
                    passToPass: [tests/test_ops.py::test_add]
                    protectedPaths: ["tests/**"]
                    hiddenTests: {path: hidden, patch: hidden.patch}
                """);
        Environment env = Environment.load(dir.resolve("hidden-env.yaml"));
        String hardcoded = FIX.replace("    return a / b\n", "    return {(-6, 3): -2, (6, -4): -1.5, (-1, -4): 0.25, (6, 3): 2, (7, 2): 3.5}[(a, b)]\n");
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), ExampleEnvironmentTest.fast())) {
            ep.reset();
            assertThat(ep.workspace().resolve("tests/test_hidden.py")).doesNotExist();
            ep.step(new ToolCall("write_file", Map.of("path", "calc/ops.py", "content", hardcoded)));
            VerifyReport r = ep.verify();
            assertThat(r.reward()).isZero();
            assertThat(r.tests().details()).filteredOn(t -> t.group().equals("failToPass")).hasSize(4);
            assertThat(r.hackFindings()).isEmpty();
        }
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), ExampleEnvironmentTest.fast())) {
            ep.reset();
            ep.step(new ToolCall("write_file", Map.of("path", "calc/ops.py", "content", FIX)));
            VerifyReport r = ep.verify();
            assertThat(r.reward()).as(String.valueOf(r.details())).isEqualTo(1.0);
            assertThat(r.tests().passed()).isEqualTo(6); // 4 failToPass + 1 passToPass + 1 unlisted
            assertThat(ep.workspace().resolve("tests/test_hidden.py")).doesNotExist();
            assertThat(Fixtures.read(ep.workspace().resolve("tests/test_ops.py"))).doesNotContain("test_divide_floats");
        }
    }

    @Test
    void resetRestoresTheWorkspaceForTheNextEpisode() {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), ExampleEnvironmentTest.fast())) {
            ep.reset();
            ep.step(new ToolCall("write_file", Map.of("path", "calc/ops.py", "content", FIX)));
            assertThat(ep.verify().reward()).isEqualTo(1.0);
            ep.reset();
            assertThat(Fixtures.read(ep.workspace().resolve("calc/ops.py"))).contains("abs(a) / abs(b)");
            assertThat(ep.verify().reward()).isZero();
        }
    }
}
