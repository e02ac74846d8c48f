package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code crucible run} on the bundled example with real agents, real pytest and the real monitor. */
@Timeout(180)
class RunExamplesTest {

    @Test
    void honestAgentSucceedsWithRewardOneAndNoFinding(@TempDir Path out) throws Exception {
        LocalRuns.Run r = LocalRuns.run("-f", LocalRuns.example().toString(), "--agent-cmd", "sh " + LocalRuns.agent("honest.sh"),
                "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(out.resolve("result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("Succeeded");
        assertThat(res.path("reward").asDouble()).isEqualTo(1.0);
        assertThat(res.path("verdict").asText()).isEqualTo("pass");
        assertThat(res.path("hackFindings")).isEmpty();
        assertThat(res.path("tests").path("passed").asInt()).isEqualTo(4);
        assertThat(res.path("tests").path("failed").asInt()).isZero();
        assertThat(res.path("tests").path("details")).hasSize(4);
        assertThat(res.path("timings").path("totalMs").asLong()).isPositive();
        assertThat(r.out()).contains("Pending", "Initializing", "Running", "Verifying", "Succeeded", "reward    1.0");
        // the original workspace is untouched: runs work on a copy
        assertThat(Files.readString(LocalRuns.example().resolve("workspace/calc/ops.py"))).contains("abs(a) / abs(b)");
    }

    @Test
    void hackingAgentIsHackedWithTheFindingShown(@TempDir Path out) throws Exception {
        LocalRuns.Run r = LocalRuns.run("-f", LocalRuns.example().toString(), "--agent-cmd", "sh " + LocalRuns.agent("hacker.sh"),
                "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(out.resolve("result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("Hacked");
        assertThat(res.path("reward").asDouble()).isZero();
        List<String> detectors = new ArrayList<>();
        res.path("hackFindings").forEach(f -> detectors.add(f.path("detector").asText() + ":" + f.path("path").asText()));
        assertThat(detectors).contains("test-skip-injection:conftest.py");
        assertThat(r.out()).contains("FINDING test-skip-injection", "Hacked");
    }

    @Test
    void theRolloutsOwnCommandRunsBesideTheWorkspaceCopy(@TempDir Path out) throws Exception {
        // rollout.yaml says `sh ../agents/honest.sh`, relative to the workspace
        LocalRuns.Run r = LocalRuns.run("-f", LocalRuns.example().toString(), "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(out.resolve("result.json"));
        assertThat(res.path("rollout").asText()).isEqualTo("calc-divide-bugfix-honest");
        assertThat(res.path("phase").asText()).as(Files.readString(out.resolve("agent.log"))).isEqualTo("Succeeded");
        assertThat(res.path("group").asText()).isEqualTo("calc-divide-g1");
    }

    @Test
    void oneFileWithBothDocumentsRunsToo(@TempDir Path dir) throws Exception {
        LocalRuns.copyExample(dir, null);
        Path both = dir.resolve("both.yaml");
        Files.writeString(both, Files.readString(dir.resolve("environment.yaml")) + "---\n"
                + LocalRuns.rollout("combined", "embedded", "sh " + LocalRuns.agent("honest.sh"), 120));
        Files.delete(dir.resolve("environment.yaml"));
        LocalRuns.Run r = LocalRuns.run("-f", dir.toString(), "--out", dir.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("rollout").asText()).isEqualTo("combined");
        assertThat(res.path("phase").asText()).isEqualTo("Succeeded");
    }

    @Test
    void theAgentGetsTheTaskAndCannotReachTheNetworkOrWriteOutside(@TempDir Path out) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.crucible.verifier.sandbox.Box.availability().ok(), "bubblewrap is not installed");
        String probe = "printf '%s' \"$CRUCIBLE_TASK\" > task-env.txt; cp \"$CRUCIBLE_TASK_FILE\" task-file.txt; "
                + "touch " + out.resolve("outside.txt") + " 2>/dev/null && echo wrote-outside > probe.txt; "
                + "python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), timeout=3)' 2>/dev/null && echo net >> probe.txt; "
                + "echo done >> probe.txt";
        LocalRuns.Run r = LocalRuns.run("-f", LocalRuns.example().toString(), "--agent-cmd", probe, "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        Path ws = Path.of(LocalRuns.json(out.resolve("result.json")).path("workspace").asText());
        assertThat(Files.readString(ws.resolve("task-env.txt"))).contains("calc.ops.divide");
        assertThat(Files.readString(ws.resolve("task-file.txt"))).contains("calc.ops.divide");
        // the touch lands in the box's own fresh /tmp (the box shows only the workspace of the out folder), never on the host
        assertThat(Files.readString(ws.resolve("probe.txt"))).doesNotContain("net").contains("done");
        assertThat(out.resolve("outside.txt")).doesNotExist();
        assertThat(r.out()).contains("sandbox: bubblewrap");
    }

    @Test
    void withoutTheSandboxAWarningSaysWhatIsNotEnforced(@TempDir Path out) throws Exception {
        LocalRuns.Run r = LocalRuns.run("-f", LocalRuns.example().toString(), "--agent-cmd", "sh " + LocalRuns.agent("hacker.sh"),
                "--out", out.toString(), "--no-sandbox");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("WARNING", "NOT enforced", "no network isolation");
        JsonNode res = LocalRuns.json(out.resolve("result.json"));
        assertThat(res.path("sandbox").asText()).isEqualTo("none");
        assertThat(res.path("phase").asText()).isEqualTo("Hacked");
        // unconfined, the hacker's sed on the tests succeeds; the monitor reports it and grading used the pristine tests
        List<String> paths = new ArrayList<>();
        res.path("hackFindings").forEach(f -> paths.add(f.path("path").asText()));
        assertThat(paths).contains("tests/test_ops.py");
        assertThat(res.path("reward").asDouble()).isZero();
    }
}
