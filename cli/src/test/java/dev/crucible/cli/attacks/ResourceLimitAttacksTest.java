package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 14 "Local resource limits": agents that write, allocate, fork and spin past small limits from the
 * manifest. Each must end the run early with a reason in result.json, also when the CLI runs as root
 * (where RLIMIT_NPROC alone does nothing). The agents run under bubblewrap in a real CLI process, as root and as
 * the throwaway uid 64123 (setpriv).
 */
@Tag("attacks")
@Timeout(300)
class ResourceLimitAttacksTest {

    // name ¦ RLEnvironment spec.resources lines ¦ Rollout spec.limits lines ¦ agent (runs in the workspace) ¦ pattern for the message ¦ the CLI's user
    @ParameterizedTest(name = "{0} as {5}")
    @CsvSource(delimiterString = "¦", quoteCharacter = '"', textBlock = """
            # Attack: fill the disk. Must hold: stopped near ephemeralStorage (64Mi), reason names the disk.
            disk-2GiB ¦ ephemeralStorage: 64Mi ¦  ¦ dd if=/dev/zero of=fill bs=1M count=2048 2>&1; sleep 20 ¦ (?i).*(disk|storage).* ¦ root
            disk-2GiB ¦ ephemeralStorage: 64Mi ¦  ¦ dd if=/dev/zero of=fill bs=1M count=2048 2>&1; sleep 20 ¦ (?i).*(disk|storage).* ¦ uid 64123
            # Attack: fill the disk to just under the limit and exit, so that grading's copy of the workspace is what fills it.
            # Must hold: the run ends on the disk limit (no grade), not as a crash of the host side (LocalRunError).
            disk-grading-copy ¦ ephemeralStorage: 64Mi ¦  ¦ head -c 40M /dev/urandom > fill ¦ (?i)disk limit 64Mi reached by the grading copy.* ¦ root
            disk-grading-copy ¦ ephemeralStorage: 64Mi ¦  ¦ head -c 40M /dev/urandom > fill ¦ (?i)disk limit 64Mi reached by the grading copy.* ¦ uid 64123
            # Attack: allocate 4 GiB. Must hold: stopped at memory (256Mi), reason names memory.
            memory-4GiB ¦ memory: 256Mi ¦  ¦ python3 -c 'import time; b=[bytearray(256<<20) for _ in range(16)]; time.sleep(20)' ¦ (?i).*(memory|oom).* ¦ root
            # (as uid 64123, without cgroups: aLimitHeldInsideTheBoxIsNamed)
            # Attack: 300 processes. Must hold: stopped at the process limit (64), reason names processes.
            processes-300 ¦  ¦ maxProcesses: 64 ¦ i=0; while [ $i -lt 300 ]; do sleep 20 & i=$((i+1)); done; wait ¦ (?i).*(process|pids).* ¦ root
            # (as uid 64123: aLimitHeldInsideTheBoxIsNamed)
            # Attack: spin the CPU. Must hold: stopped at the CPU-time limit (5 s), reason names CPU.
            cpu-spin ¦  ¦ maxCpuSeconds: 5 ¦ timeout 80 sh -c 'while :; do :; done' ¦ (?i).*cpu.* ¦ root
            cpu-spin ¦  ¦ maxCpuSeconds: 5 ¦ timeout 80 sh -c 'while :; do :; done' ¦ (?i).*cpu.* ¦ uid 64123
            """)
    void aLimitEndsTheRunWithAReason(String name, String resources, String limits, String agent, String reason, String who) throws Exception {
        JsonNode res = run(name, resources, limits, agent, who);
        assertThat(res.path("phase").asText()).as(res.toString()).isIn("Failed", "TimedOut");
        assertThat(res.path("reason").asText()).as("result.json reason: " + res).isEqualTo("ResourceLimitExceeded");
        assertThat(res.path("message").asText()).as("result.json message names the limit: " + res).matches(reason);
    }

    /**
     * As uid 64123 there are no cgroups: RLIMIT_AS and RLIMIT_NPROC hold inside the box (the allocation and the forks fail, the agent
     * exits 1 and 2 by itself) and nothing outside sees them hit. The message still names the limit as likely hit, from the exit and
     * the output's tail (before: Succeeded/Verified, no word of a limit).
     */
    @ParameterizedTest(name = "{0} as uid 64123")
    @CsvSource(delimiterString = "¦", quoteCharacter = '"', textBlock = """
            memory-4GiB ¦ memory: 256Mi ¦  ¦ python3 -c 'import time; b=[bytearray(256<<20) for _ in range(16)]; time.sleep(20)' ¦ (?s).*the memory limit 256Mi \\(RLIMIT_AS, per process\\) was likely hit: the agent exited 1.*
            processes-300 ¦  ¦ maxProcesses: 64 ¦ i=0; while [ $i -lt 300 ]; do sleep 20 & i=$((i+1)); done; wait ¦ (?s).*the process limit 64 \\(RLIMIT_NPROC\\) was likely hit: the agent exited 2.*
            """)
    void aLimitHeldInsideTheBoxIsNamed(String name, String resources, String limits, String agent, String message) throws Exception {
        JsonNode res = run(name, resources, limits, agent, "uid 64123");
        assertThat(res.path("message").asText()).as("result.json message names the limit: " + res).matches(message);
    }

    private static JsonNode run(String name, String resources, String limits, String agent, String who) throws Exception {
        Integer uid = "root".equals(who) ? null : CliProcess.THROWAWAY_UID;
        CliProcess.assumeRoot(); // root, or to become the throwaway uid
        CliProcess.assumeBubblewrapFor(uid);
        try (AttackHost host = new AttackHost()) {
            Path env = AttackFixtures.attackEnvironment(host.base.resolve("env"), "hidden-tests-" + name, "");
            Path manifest = env.resolve("environment.yaml");
            String m = Files.readString(manifest);
            if (resources != null) {
                String key = resources.substring(0, resources.indexOf(':'));
                m = m.contains("    " + key + ":") ? m.replaceAll("(?m)^    " + key + ":.*$", "    " + resources)
                        : m.replace("  resources:\n", "  resources:\n    " + resources + "\n");
            }
            Files.writeString(manifest, m);
            Files.writeString(env.resolve("rollout.yaml"), AttackFixtures.rolloutWithLimits("limit-" + name.toLowerCase(), agent, 120,
                    limits == null ? "" : "    " + limits + "\n"));
            Path out = host.base.resolve("out");
            if (uid != null) CliProcess.chown(env, uid);
            long t0 = System.nanoTime();
            CliProcess.Result run = CliProcess.run(uid, host.home, List.of("run", "-f", env.toString(), "--out", out.toString()), null, 240);
            long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
            assertThat(run.exit()).as(run.output()).isZero();
            JsonNode res = new ObjectMapper().readTree(out.resolve("result.json").toFile());
            assertThat(res.path("sandbox").asText()).as(run.output()).isEqualTo("bubblewrap");
            assertThat(seconds).as("the limit, not the 120 s deadline, ended the run").isLessThan(100);
            return res;
        }
    }
}
