package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.sandbox.Box;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The agent of {@code crucible run} in the shared box: what it sees, and a limit that ends it with its reason. */
@Timeout(180)
class AgentBoxTest {
    @TempDir Path dir;

    @BeforeEach
    void needsBox() { assumeTrue(Box.availability().ok(), () -> "no box here: " + Box.availability().problem()); }

    @Test
    void theAgentSeesItsWorkspaceAndItsScriptButNothingElseOfTheHost() throws Exception {
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("probe", "embedded", "sh ../agents/probe.sh", 120)));
        Path out = dir.resolve("out");
        Files.createDirectories(env.resolve("agents"));
        Files.writeString(env.resolve("agents/other-agent.sh"), "echo other");
        Files.writeString(env.resolve("agents/probe.sh"), String.join("\n",
                "exec > probe.txt 2>&1",
                "grep CapEff /proc/self/status",
                "echo \"map $(awk '{print $2}' /proc/self/uid_map)\"",
                "ls ../agents | tr '\\n' ' '; echo",
                "test -e " + env.resolve("environment.yaml") + " && echo MANIFEST_VISIBLE",
                "test -e ../agents/other-agent.sh && echo OTHER_AGENT_VISIBLE",
                "test -e " + out.resolve("agent.log") + " && echo ATTEMPT_VISIBLE",
                "grep -c -e " + env + " -e crucible-state /proc/self/mountinfo | sed 's/^/mountinfo-mentions /'",
                "ls -A /root | tr '\\n' ' '; echo",
                "test -e /root/.cache && echo CACHE_VISIBLE",
                "mount -o remount,rw / 2>/dev/null && echo REMOUNTED",
                "python3 -m pytest --version >/dev/null 2>&1 && echo PYTEST_RUNS",
                "echo end", ""));
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("sandbox: bubblewrap box", "no capabilities", "limits: memory 1Gi");
        Path ws = Path.of(LocalRuns.json(out.resolve("result.json")).path("workspace").asText());
        String probe = Files.readString(ws.resolve("probe.txt"));
        assertThat(probe).contains("CapEff:\t0000000000000000", "probe.sh", "mountinfo-mentions 0", "PYTEST_RUNS", "end")
                .doesNotContain("MANIFEST_VISIBLE", "OTHER_AGENT_VISIBLE", "ATTEMPT_VISIBLE", "CACHE_VISIBLE", "REMOUNTED", "other-agent.sh");
        if (Box.ROOT) assertThat(probe).doesNotContain("map 0\n");
    }

    @Test
    void aMemoryHogEndsTheRunFailedWithTheReason() throws Exception {
        assumeTrue(Box.ROOT, "memory is a cgroup limit as root (RLIMIT_AS otherwise)");
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("hog", "embedded",
                "python3 -c 'x = bytearray(600 << 20); x[::4096] = bytes(len(x[::4096])); print(1)'", 120)));
        Path m = env.resolve("environment.yaml");
        Files.writeString(m, Files.readString(m).replace("memory: 1Gi", "memory: 96Mi"));
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--out", dir.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("Failed");
        assertThat(res.path("reason").asText()).isEqualTo("ResourceLimitExceeded");
        assertThat(res.path("message").asText()).contains("memory limit 96Mi reached (OOM kill)");
    }
}
