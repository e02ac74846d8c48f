package dev.crucible.verifier.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.contract.RunFolder;
import dev.crucible.verifier.pod.PodSettings;
import dev.crucible.verifier.pod.PodSidecar;
import dev.crucible.verifier.support.Fixtures;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: the pod sidecar's environment API attacked by the agent container beside it (same network,
 * no token). The agent is {@code attacks/api/pod-erase-findings.sh}, confined by bubblewrap (own user,
 * PID, IPC and mount namespaces, the pod's network shared, as in a pod); the sidecar is the real one.
 */
@Tag("attacks")
@Timeout(300)
class PodApiAttackTest {
    @TempDir
    Path dir;

    @Test
    void theAgentCannotReadOrEraseItsFindingsWithoutTheToken() throws Exception {
        Path bwrap = Stream.of("/usr/bin/bwrap", "/bin/bwrap").map(Path::of).filter(Files::isExecutable).findFirst().orElse(null);
        Assumptions.assumeTrue(bwrap != null, "attack suite: bubblewrap (bwrap) is not installed; the agent must not run unconfined");
        Path workspace = dir.resolve("workspace");
        Fixtures.copyTree(Fixtures.example().resolve("workspace"), workspace);
        Fixtures.copyTree(Fixtures.example().resolve("workspace"), dir.resolve("pristine"));
        Path run = Files.createDirectories(dir.resolve("run"));
        // interface: the sidecar's token comes from a file (a Secret mounted only into the sidecar container)
        Path secret = Files.createDirectories(dir.resolve("sidecar-secret"));
        Path tokenFile = Files.writeString(secret.resolve("api-token"), "sidecar-only-token-0123456789abcdef\n");
        Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Map<String, String> env = new HashMap<>(Map.of(
                "CRUCIBLE_ENVIRONMENT_FILE", Fixtures.example().resolve("environment.yaml").toString(),
                "CRUCIBLE_WORKSPACE", workspace.toString(), "CRUCIBLE_PRISTINE", dir.resolve("pristine").toString(),
                "CRUCIBLE_RUN_DIR", dir.resolve("run").toString(), "CRUCIBLE_RESULT_FILE", dir.resolve("termination-log").toString(),
                "CRUCIBLE_PORT", Integer.toString(port), "CRUCIBLE_MAX_DURATION_SECONDS", "120", "CRUCIBLE_MODE", "embedded"));
        env.put("CRUCIBLE_API_TOKEN_FILE", tokenFile.toString()); // interface: variable naming the token file
        PodSettings settings = PodSettings.fromEnvironment(env);
        CompletableFuture<String> result = CompletableFuture.supplyAsync(() -> {
            try {
                return new PodSidecar(settings, Duration.ofMillis(100)).run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Path script = Fixtures.repoRoot().resolve("attacks/api/pod-erase-findings.sh");
        List<String> argv = new java.util.ArrayList<>(List.of(bwrap.toString(), "--unshare-all", "--share-net", "--die-with-parent",
                "--new-session", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                "--tmpfs", secret.toString(), "--bind", workspace.toString(), workspace.toString(), "--chdir", workspace.toString(),
                "--bind", run.toString(), run.toString(), // the run folder the pod's agent and sidecar share
                // the script bound on its own: the checkout may itself lie under /tmp, which the fresh /tmp hides
                "--ro-bind", script.toString(), "/tmp/pod-erase-findings.sh"));
        // the pod's own wrapper: the agent starts once the sidecar's monitor watches, and its exit is recorded
        argv.addAll(RunFolder.agentWrapper(List.of("sh", "/tmp/pod-erase-findings.sh", Integer.toString(port)), run.toString()));
        Process agent = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String agentOut = new String(agent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(agent.waitFor(120, TimeUnit.SECONDS)).as("the agent ended: " + agentOut).isTrue();
        JsonNode r = new ObjectMapper().readTree(result.get(180, TimeUnit.SECONDS));

        assertThat(agentOut).as("the agent's calls").contains("CODE findings 401", "CODE reset 401");
        assertThat(r.path("hackFindings")).as("pod result: " + r).isNotEmpty();
        assertThat(r.path("hackFindings").toString()).contains("conftest.py");
        assertThat(r.path("phase").asText()).as(r.toString()).isEqualTo("Hacked");
    }
}
