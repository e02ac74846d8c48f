package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.Environment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each attempt grades with its own private copy of the hidden tests: parallel attempts share no hidden
 * file, so one attempt's grading is never blamed on another's agent, and the agent sees no path to them.
 */
@Timeout(240)
class HiddenTestsPerAttemptTest {
    private static final String HIDDEN_TEST = """
            from calc.ops import divide


            def test_divide_hidden():
                assert divide(-9, 3) == -3
            """;

    private static Path withHiddenTests(Path dir) throws Exception {
        LocalRuns.withoutSetup(LocalRuns.copyExample(dir, null));
        Files.createDirectories(dir.resolve("hidden/tests"));
        Files.writeString(dir.resolve("hidden/tests/test_hidden.py"), HIDDEN_TEST);
        Path m = dir.resolve("environment.yaml");
        String env = Files.readString(m)
                .replace("      - tests/test_ops.py::test_divide_by_zero\n",
                        "      - tests/test_ops.py::test_divide_by_zero\n      - tests/test_hidden.py::test_divide_hidden\n")
                .replace("    rewardMode: binary\n", "    rewardMode: binary\n    hiddenTests:\n      path: ./hidden\n");
        assertThat(env).contains("test_divide_hidden", "hiddenTests");
        Files.writeString(m, env);
        return m;
    }

    @Test
    void everyCopyIsPrivateAndItsOwn(@TempDir Path dir) throws Exception {
        Path m = withHiddenTests(dir);
        Environment env = Environment.load(m);
        Environment a = env.withPrivateHiddenTests(dir.resolve("state-a/hidden"));
        Environment b = env.withPrivateHiddenTests(dir.resolve("state-b/hidden"));
        Path ha = a.hiddenTestsDir().orElseThrow();
        Path hb = b.hiddenTestsDir().orElseThrow();
        assertThat(ha).isNotEqualTo(hb).isNotEqualTo(env.hiddenTestsDir().orElseThrow());
        assertThat(ha.resolve("tests/test_hidden.py")).hasContent(HIDDEN_TEST);
        assertThat(hb.resolve("tests/test_hidden.py")).hasContent(HIDDEN_TEST);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ha.getParent()))).isEqualTo("rwx------");
    }

    @Test
    void parallelHonestAttemptsPassTheHiddenTestsWithoutFindings(@TempDir Path dir) throws Exception {
        Path m = withHiddenTests(dir);
        Path out = dir.resolve("out");
        String agent = "env > agent-env.txt; sh " + LocalRuns.agent("honest.sh");
        LocalRuns.Run r = LocalRuns.run("-f", m.toString(), "--agent-cmd", agent, "--attempts", "2", "--parallel", "2", "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        for (int i = 0; i < 2; i++) {
            Path attempt = out.resolve("attempt-" + i);
            JsonNode res = LocalRuns.json(attempt.resolve("result.json"));
            assertThat(res.path("phase").asText()).as(res.toString()).isEqualTo("Succeeded");
            assertThat(res.path("reward").asDouble()).isEqualTo(1.0);
            assertThat(res.path("hackFindings")).as("no attempt is blamed for the other's grading").isEmpty();
            assertThat(res.path("tests").path("details").toString()).contains("test_divide_hidden");
            // neither the hidden tests nor where they are copied is in the agent's environment or workspace
            String agentEnv = Files.readString(attempt.resolve("sandbox/workspace/agent-env.txt"));
            assertThat(agentEnv).doesNotContain("hidden").doesNotContain("crucible-state-");
            assertThat(attempt.resolve("sandbox/hidden")).doesNotExist();
            assertThat(TaskWorkspaceTest.git(attempt.resolve("sandbox/workspace"), "rev-list", "--objects", "--all")).doesNotContain("test_hidden");
        }
    }
}
