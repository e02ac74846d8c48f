package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Deadlines, invalid input and groups of attempts. */
@Timeout(180)
class RunLimitsTest {

    @Test
    void aHangingAgentIsStoppedAtTheDeadlineAndReportedTimedOut(@TempDir Path dir) throws Exception {
        String marker = "987.654" + ProcessHandle.current().pid();
        Path env = LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("hangs", "embedded", "sleep " + marker, 6));
        LocalRuns.withoutSetup(env); // the deadline counts from the start; a slow setup on a loaded machine must not eat it
        long t0 = System.nanoTime();
        LocalRuns.Run r = LocalRuns.run("-f", dir.resolve("env").toString(), "--out", dir.resolve("out").toString());
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("TimedOut");
        assertThat(res.path("reason").asText()).isEqualTo("DeadlineExceeded");
        assertThat(res.path("agent").has("exitCode")).isFalse();
        assertThat(seconds).isLessThan(60);
        assertThat(LocalRuns.processesWith(marker)).isZero();
        assertThat(r.out()).contains("deadline of 6 s reached: stopping the agent", "TimedOut");
    }

    @Test
    void theTerminatePolicyStopsAHackingAgentLongBeforeItsDeadline(@TempDir Path dir) throws Exception {
        String marker = "765.432" + ProcessHandle.current().pid();
        Path env = LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("terminated", "embedded",
                "cp ../hook.py conftest.py; sleep " + marker, 120));
        Files.writeString(env.resolve("hook.py"), """
                import pytest


                @pytest.hookimpl(hookwrapper=True)
                def pytest_runtest_makereport(item, call):
                    outcome = yield
                    outcome.get_result().outcome = "passed"
                """);
        Path manifest = env.resolve("environment.yaml");
        Files.writeString(manifest, Files.readString(manifest).replace("action: flag", "action: terminate"));
        long t0 = System.nanoTime();
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--out", dir.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat((System.nanoTime() - t0) / 1_000_000_000L).isLessThan(60);
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("Hacked");
        assertThat(res.path("verdict").asText()).isEqualTo("hacked");
        assertThat(res.path("reward").asDouble()).isZero();
        // the finding that counts carries the policy's action (an info finding beside it is only recorded)
        List<JsonNode> counted = new java.util.ArrayList<>();
        res.path("hackFindings").forEach(f -> { if (!f.path("severity").asText().equals("info")) counted.add(f); });
        assertThat(counted).as(res.path("hackFindings").toString()).isNotEmpty()
                .allSatisfy(f -> assertThat(f.path("action").asText()).isEqualTo("terminate"));
        assertThat(LocalRuns.processesWith(marker)).isZero();
        assertThat(r.out()).contains("the hack policy terminated the episode");
    }

    @Test
    void aFailingSetupScriptIsFailedAndTheAgentNeverRuns(@TempDir Path dir) throws Exception {
        Path env = LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("nosetup", "embedded", "touch ran", 60));
        Path manifest = env.resolve("environment.yaml");
        Files.writeString(manifest, Files.readString(manifest).replace("python3 -m pip --version >/dev/null 2>&1 || true",
                "echo installing; echo \"$SETUP_FLAVOUR\"; exit 3").replace("  setup:\n", "  setup:\n    env:\n      SETUP_FLAVOUR: mint\n"));
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--out", dir.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("Failed");
        assertThat(res.path("reason").asText()).isEqualTo("SetupFailed");
        assertThat(res.path("setup").path("exitCode").asInt()).isEqualTo(3);
        assertThat(Files.readString(dir.resolve("out/setup.log"))).contains("installing", "mint");
        assertThat(Path.of(res.path("workspace").asText()).resolve("ran")).doesNotExist();
    }

    @Test
    void invalidManifestExitsTwoNamingFileAndField() {
        Path bad = LocalRuns.root().resolve("examples/invalid/14-rollout-embedded-without-agent.yaml");
        LocalRuns.Run r = LocalRuns.run("-f", bad.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(bad.toString()).contains("spec.agent").contains("nothing was run");
    }

    @Test
    void anEnvironmentWithoutALocalWorkspaceIsInvalidForALocalRun(@TempDir Path dir) throws Exception {
        LocalRuns.copyExample(dir, null);
        Path env = dir.resolve("environment.yaml");
        Files.writeString(env, Files.readString(env).replace("path: ./workspace", "path: ./nowhere"));
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--agent-cmd", "true");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(env.toString()).contains("spec.workspace.path").containsPattern("does not exist|no such directory");
    }

    @Test
    void badFlagsExitTwo() {
        assertThat(LocalRuns.run("-f", LocalRuns.example().toString(), "--attempts", "0").exit()).isEqualTo(2);
        assertThat(LocalRuns.run("--attempts", "2").exit()).isEqualTo(2);
    }

    @Test
    void attemptsGiveASummaryWithSolveCountAndLearnableBand(@TempDir Path dir) throws Exception {
        // attempt 0 fixes the bug, the others give up: solved 1 of 3, inside the default band [0.01, 0.99]
        String agent = "if [ \"$CRUCIBLE_ATTEMPT\" = 0 ]; then sh " + LocalRuns.agent("honest.sh") + "; fi";
        LocalRuns.Run r = LocalRuns.run("-f", LocalRuns.example().resolve("environment.yaml").toString(), "--agent-cmd", agent,
                "--attempts", "3", "--parallel", "2", "--out", dir.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode s = LocalRuns.json(dir.resolve("summary.json"));
        assertThat(s.path("attempts").asInt()).isEqualTo(3);
        assertThat(s.path("solved").asInt()).isEqualTo(1);
        JsonNode g = s.path("rollouts").get(0);
        assertThat(g.path("solveRate").asDouble()).isBetween(0.33, 0.34);
        assertThat(g.path("inLearnableBand").asBoolean()).isTrue();
        assertThat(g.path("results")).hasSize(3);
        for (int i = 0; i < 3; i++) {
            JsonNode res = LocalRuns.json(dir.resolve("attempt-" + i + "/result.json"));
            assertThat(res.path("attempt").asInt()).isEqualTo(i);
            assertThat(res.path("reward").asDouble()).isEqualTo(i == 0 ? 1.0 : 0.0);
            assertThat(res.path("phase").asText()).isEqualTo("Succeeded"); // graded, no finding, whatever the reward
        }
        assertThat(r.out()).contains("solved 1/3", "inside the learnable band");
    }
}
