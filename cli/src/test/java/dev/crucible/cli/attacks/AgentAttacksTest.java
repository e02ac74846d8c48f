package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14, "Broken" and "Partial": agents that try to leave the bubblewrap sandbox of {@code crucible run},
 * run as a real agent by a real CLI process, once with the CLI as root and once as a throwaway
 * unprivileged uid. Each script in {@code attacks/agent/} prints one verdict line; the test also checks
 * the host itself (canary files, listeners, the CLI still alive). Two attempts run in parallel with
 * {@code --out} under /var/tmp, so each can try to read the other's live workspace.
 */
@Tag("attacks")
@Timeout(900)
class AgentAttacksTest {
    /** The scripts run-all.sh runs, in its order (kill-cli last). */
    static final List<String> ATTACKS = List.of("cap-eff", "uid-outside", "mountinfo-hidden", "env-hidden", "host-socket",
            "read-root-home", "read-snapshot-store", "other-attempt", "manifest-folder", "net-loopback-tcp", "net-loopback-udp",
            "net-host-address", "net-off-box", "write-host-file", "remount-root", "umount-tmp", "umount-proc", "proc-cli-root",
            "proc-1-root", "mknod", "setns", "ptrace-cli", "kill-cli");

    @TestFactory
    Stream<DynamicTest> asRoot() throws Exception {
        CliProcess.assumeRoot();
        CliProcess.assumeBubblewrapFor(null);
        return attack(null);
    }

    @TestFactory
    Stream<DynamicTest> asUnprivilegedUser() throws Exception {
        CliProcess.assumeRoot(); // to become the throwaway uid
        CliProcess.assumeBubblewrapFor(CliProcess.THROWAWAY_UID);
        return attack(CliProcess.THROWAWAY_UID);
    }

    private Stream<DynamicTest> attack(Integer uid) throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        try (AttackHost host = new AttackHost()) {
            String hiddenMarker = "hidden-tests-" + Long.toHexString(System.nanoTime());
            Path out = host.base.resolve("out");
            Path env = AttackFixtures.attackEnvironment(host.base.resolve("env"), hiddenMarker,
                    host.envFile(out, host.base.resolve("env"), hiddenMarker));
            CliProcess.Result run = CliProcess.run(uid, host.home, List.of("run", "-f", env.toString(), "--out", out.toString(),
                    "--attempts", "2", "--parallel", "2"), "CLI_PID=$CLI_PID sh .attacks/run-all.sh", 600);
            String who = uid == null ? "root" : "uid " + uid;
            String context = "CLI as " + who + ", exit " + run.exit() + "\n" + run.output();

            // what the host saw, read now: the host folder is deleted when this block ends
            List<String> hostWrites = host.hostWrites();
            int unix = host.unixConnections.get();
            int tcp = host.tcpConnections.get();
            int udp = host.udpDatagrams.get();
            Map<Integer, String> logs = new LinkedHashMap<>();
            Map<Integer, JsonNode> results = new LinkedHashMap<>();
            Map<Integer, Integer> probeOwner = new LinkedHashMap<>();
            for (int i = 0; i < 2; i++) {
                Path a = out.resolve("attempt-" + i);
                logs.put(i, Files.exists(a.resolve("agent.log")) ? Files.readString(a.resolve("agent.log")) : "");
                results.put(i, Files.exists(a.resolve("result.json")) ? new ObjectMapper().readTree(a.resolve("result.json").toFile()) : null);
                Path probe = a.resolve("sandbox/workspace/.attacks/uid-probe");
                probeOwner.put(i, Files.exists(probe) ? (Integer) Files.getAttribute(probe, "unix:uid") : null);
            }

            tests.add(DynamicTest.dynamicTest("the CLI ran both attempts under bubblewrap and wrote their results", () -> {
                for (int i = 0; i < 2; i++) {
                    assertThat(results.get(i)).as("attempt-%d/result.json (%s)", i, context).isNotNull();
                    assertThat(results.get(i).path("sandbox").asText()).as(context).isEqualTo("bubblewrap");
                    assertThat(logs.get(i)).as("attempt %d's agent.log must end with the runner's last line", i).contains("ATTACKS DONE");
                }
            }));
            Map<String, Consumer<Integer>> hostChecks = Map.of(
                    "write-host-file", i -> assertThat(hostWrites).as("host files written").doesNotContain("write-host-file"),
                    "remount-root", i -> assertThat(hostWrites).as("host files written").doesNotContain("remount-root"),
                    "proc-cli-root", i -> assertThat(hostWrites).as("host files written").doesNotContain("proc-cli-root"),
                    "proc-1-root", i -> assertThat(hostWrites).as("host files written").doesNotContain("proc-1-root"),
                    "host-socket", i -> assertThat(unix).as("connections to the host's Unix sockets").isZero(),
                    "net-loopback-tcp", i -> assertThat(tcp).as("connections to the host's TCP listener").isZero(),
                    "net-host-address", i -> assertThat(tcp).as("connections to the host's TCP listener").isZero(),
                    "net-loopback-udp", i -> assertThat(udp).as("datagrams at the host's UDP socket").isZero(),
                    "uid-outside", i -> assertThat(probeOwner.get(i)).as("host owner of a file the agent created").isNotNull().isNotZero(),
                    "kill-cli", i -> assertThat(run.exit()).as("the CLI's exit code after the attacks: " + context).isZero());
            for (String name : ATTACKS) {
                tests.add(DynamicTest.dynamicTest(name + " is held (" + who + ")", () -> {
                    for (int i = 0; i < 2; i++) {
                        String verdict = verdict(logs.get(i), name);
                        assertThat(verdict).as("attempt %d: %s", i, name).startsWith("ATTACK " + name + " HELD");
                        if (hostChecks.containsKey(name)) hostChecks.get(name).accept(i);
                    }
                }));
            }
        }
        return tests.stream();
    }

    /** The attack's verdict line in an agent log, or why there is none. */
    static String verdict(String log, String name) {
        return log.lines().filter(l -> l.startsWith("ATTACK " + name + " ")).findFirst()
                .orElse("no verdict for " + name + " in agent.log (the run ended before it?):\n" + log);
    }
}
