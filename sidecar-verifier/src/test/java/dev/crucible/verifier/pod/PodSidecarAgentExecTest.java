package dev.crucible.verifier.pod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.verifier.api.ApiToken;
import dev.crucible.verifier.support.Fixtures;
import dev.crucible.verifier.support.GradingContainerProcess;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An interactive rollout pod with an agent-exec container, end to end: the trainer drives the episode
 * over the sidecar's real HTTP API, the bash steps run in the agent-exec container (a real runner
 * process standing for it, see GradingContainerProcess), the sidecar grades with real pytest.
 */
class PodSidecarAgentExecTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir Path dir;
    final String token = ApiToken.generate().value();
    PodSettings settings;
    String base;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void pod() throws Exception {
        assumeTrue(GradingContainerProcess.unavailable().isEmpty(), () -> "needs " + GradingContainerProcess.unavailable().orElse(""));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Path example = Fixtures.example();
        Fixtures.copyTree(example.resolve("workspace"), dir.resolve("workspace"));
        Fixtures.copyTree(example.resolve("workspace"), dir.resolve("pristine"));
        Path run = Files.createDirectories(dir.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxrwxrwx")); // only the layout protects it
        Path volume = Files.createDirectories(dir.resolve("agent-exec"));
        Files.setPosixFilePermissions(volume, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path secret = Files.createDirectories(dir.resolve("secret")).resolve("token");
        Files.writeString(secret, token + "\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r--r--"));
        Files.writeString(dir.resolve("termination-log"), "");
        Files.setPosixFilePermissions(dir.resolve("termination-log"), PosixFilePermissions.fromString("rw-rw-rw-"));
        Map<String, String> env = new HashMap<>();
        env.put("CRUCIBLE_ENVIRONMENT_FILE", example.resolve("environment.yaml").toString());
        env.put("CRUCIBLE_WORKSPACE", dir.resolve("workspace").toString());
        env.put("CRUCIBLE_PRISTINE", dir.resolve("pristine").toString());
        env.put("CRUCIBLE_RUN_DIR", run.toString());
        env.put("CRUCIBLE_RESULT_FILE", dir.resolve("termination-log").toString());
        try (ServerSocket s = new ServerSocket(0)) {
            env.put("CRUCIBLE_PORT", Integer.toString(s.getLocalPort()));
        }
        env.put("CRUCIBLE_MAX_DURATION_SECONDS", "150");
        env.put("CRUCIBLE_MODE", "interactive");
        env.put("CRUCIBLE_API_TOKEN_FILE", secret.toString());
        env.put("CRUCIBLE_AGENT_EXEC_SOCKET", volume.resolve("runner.sock").toString());
        settings = PodSettings.fromEnvironment(env);
        base = "http://127.0.0.1:" + settings.port();
    }

    private CompletableFuture<String> sidecar() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new PodSidecar(settings, Duration.ofMillis(100)).run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private JsonNode post(String path, String body) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        for (int attempt = 0; ; attempt++) {
            try {
                HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
                return JSON.readTree(r.body());
            } catch (ConnectException e) {
                if (attempt > 50) throw e;
                Thread.sleep(200); // the sidecar is still starting
            }
        }
    }

    private JsonNode bash(String command) throws Exception {
        ObjectNode call = JSON.createObjectNode().put("tool", "bash");
        call.putObject("args").put("command", command);
        return post("/v1/step", call.toString());
    }

    /**
     * A step that goes for the sidecar (its token, run folder, result file, JVM's /proc), then the honest
     * fix, both through the API: the first reaches nothing, the second is graded Succeeded.
     */
    @Test
    void interactiveStepsRunInTheAgentExecContainerAndReachNothingOfTheSidecar() throws Exception {
        CompletableFuture<String> result = sidecar();
        try (GradingContainerProcess container = GradingContainerProcess.startAgent(dir.resolve("agent-exec"), dir, settings.workspace())) {
            // as in a pod, the agent-exec container is up by the first reset: it runs spec.setup.script there
            post("/v1/reset", "{}");
            long jvm = ProcessHandle.current().pid();
            JsonNode attack = bash(String.join("\n",
                    "cat " + settings.apiTokenFile() + " && echo TOKEN-READ",
                    "echo 0 > " + settings.agentExitFile() + " && echo RUN-WRITTEN",
                    "grep -q '[j]ava' /proc/" + jvm + "/cmdline && echo SIDECAR-PROC",
                    "grep -l '[j]ava' /proc/[0-9]*/cmdline && echo JAVA-SEEN",
                    "pwd",
                    "exit 4"));
            assertThat(attack.path("exitCode").asInt()).as(container.log()).isEqualTo(4);
            assertThat(attack.path("observation").asText()).contains(settings.workspace().toString())
                    .doesNotContain(token, "TOKEN-READ", "SIDECAR-PROC", "JAVA-SEEN");
            assertThat(settings.agentExitFile()).doesNotExist();
            JsonNode timedOut = post("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"echo begun; sleep 20\",\"timeoutSeconds\":1}}");
            assertThat(timedOut.path("observation").asText()).startsWith("begun\n").contains("[timed out after 1s");
            assertThat(timedOut.path("exitCode").asInt()).isEqualTo(-1);
            JsonNode fix = bash(Files.readString(Fixtures.example().resolve("agents/honest.sh")));
            assertThat(fix.path("observation").asText()).contains("4 passed");
            post("/v1/verify", "{}");
            JsonNode r = JSON.readTree(result.get(60, TimeUnit.SECONDS));
            assertThat(r.path("phase").asText()).isEqualTo("Succeeded");
            assertThat(r.path("reward").asDouble()).isEqualTo(1.0);
            assertThat(r.path("turns").asInt()).isEqualTo(3);
            assertThat(container.process().waitFor(20, TimeUnit.SECONDS)).as("the runner ends with the sidecar").isTrue();
        }
    }

    /**
     * Under the terminate policy a finding from the step's own process samples kills that step in the
     * agent-exec container at once: the step ends killed, the episode is done, the pod result Hacked.
     */
    @Test
    void terminateKillsTheRunningStepInTheAgentExecContainer() throws Exception {
        Path manifest = Fixtures.copyExample(dir.resolve("env"));
        Files.writeString(manifest, Files.readString(manifest).replace("action: flag", "action: terminate"));
        Map<String, String> env = new HashMap<>(Map.of(
                "CRUCIBLE_ENVIRONMENT_FILE", manifest.toString(), "CRUCIBLE_WORKSPACE", settings.workspace().toString(),
                "CRUCIBLE_PRISTINE", settings.pristine().toString(), "CRUCIBLE_RUN_DIR", settings.runDir().toString(),
                "CRUCIBLE_RESULT_FILE", settings.resultFile().toString(), "CRUCIBLE_PORT", Integer.toString(settings.port()),
                "CRUCIBLE_MAX_DURATION_SECONDS", "150", "CRUCIBLE_MODE", "interactive",
                "CRUCIBLE_API_TOKEN_FILE", settings.apiTokenFile().toString()));
        env.put("CRUCIBLE_AGENT_EXEC_SOCKET", settings.agentExecSocket().toString());
        settings = PodSettings.fromEnvironment(env);
        CompletableFuture<String> result = sidecar();
        try (GradingContainerProcess container = GradingContainerProcess.startAgent(dir.resolve("agent-exec"), dir, settings.workspace())) {
            // as in a pod, the agent-exec container is up by the first reset: it runs spec.setup.script there
            post("/v1/reset", "{}");
            ObjectNode write = JSON.createObjectNode().put("tool", "write_file");
            write.putObject("args").put("path", "probe.sh").put("content", "sh -c 'sleep 30; true # /proc/self/mountinfo'\n");
            post("/v1/step", write.toString());
            long t0 = System.nanoTime();
            JsonNode step = bash("sh probe.sh");
            assertThat((System.nanoTime() - t0) / 1_000_000).as(container.log()).isLessThan(15_000);
            assertThat(step.path("exitCode").asInt()).isEqualTo(137);
            assertThat(step.path("done").asBoolean()).isTrue();
            assertThat(step.path("findings").toString()).contains("agent container pid", "mountinfo");
            post("/v1/verify", "{}");
            JsonNode r = JSON.readTree(result.get(60, TimeUnit.SECONDS));
            assertThat(r.path("phase").asText()).isEqualTo("Hacked");
        }
    }

    /**
     * A process the step's command line does not show (started by a script) is still seen by the live monitor.
     * (It once failed under load: a child sampled between fork and exec showed its parent's command line, and
     * a command line was sent once per process; now it is sent again whenever it changes.)
     */
    @Test
    void theLiveMonitorSeesTheAgentContainersProcesses() throws Exception {
        CompletableFuture<String> result = sidecar();
        try (GradingContainerProcess container = GradingContainerProcess.startAgent(dir.resolve("agent-exec"), dir, settings.workspace())) {
            // as in a pod, the agent-exec container is up by the first reset: it runs spec.setup.script there
            post("/v1/reset", "{}");
            ObjectNode write = JSON.createObjectNode().put("tool", "write_file");
            // lives for a dozen of the runner's 250 ms samples: one second was missed when the full suite loaded 2 cores
            write.putObject("args").put("path", "probe.sh").put("content", "sh -c 'sleep 3; true # /proc/self/mountinfo'\n");
            post("/v1/step", write.toString());
            JsonNode step = bash("sh probe.sh");
            assertThat(step.path("exitCode").asInt()).as(container.log()).isZero();
            assertThat(step.path("findings").toString()).contains("agent container pid", "mountinfo");
            post("/v1/verify", "{}");
            JsonNode r = JSON.readTree(result.get(60, TimeUnit.SECONDS));
            assertThat(r.path("phase").asText()).isEqualTo("Hacked");
        }
    }
}
