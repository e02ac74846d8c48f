package dev.crucible.verifier.pod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.contract.RunFolder;
import dev.crucible.verifier.support.Fixtures;
import dev.crucible.verifier.support.GradingContainerProcess;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar as it runs in a rollout pod: configured by CRUCIBLE_* variables, waiting for the agent
 * container's exit marker (or the trainer's verify, or the deadline), then writing the result the
 * operator reads from the termination message. Real pytest, real HTTP.
 */
class PodSidecarTest {

    @TempDir
    Path dir;
    /** What the operator's Secret holds; the test is the trainer, so it knows it. */
    final String token = dev.crucible.verifier.api.ApiToken.generate().value();

    private Map<String, String> podEnv(String mode, long maxSeconds) throws Exception {
        Path example = Fixtures.example();
        Path workspace = dir.resolve("workspace");
        Path pristine = dir.resolve("pristine");
        Fixtures.copyTree(example.resolve("workspace"), workspace);
        Fixtures.copyTree(example.resolve("workspace"), pristine);
        Files.createDirectories(dir.resolve("run"));
        Map<String, String> env = new HashMap<>();
        env.put("CRUCIBLE_ENVIRONMENT_FILE", example.resolve("environment.yaml").toString());
        env.put("CRUCIBLE_WORKSPACE", workspace.toString());
        env.put("CRUCIBLE_PRISTINE", pristine.toString());
        env.put("CRUCIBLE_RUN_DIR", dir.resolve("run").toString());
        env.put("CRUCIBLE_RESULT_FILE", dir.resolve("termination-log").toString());
        env.put("CRUCIBLE_PORT", Integer.toString(freePort()));
        env.put("CRUCIBLE_MAX_DURATION_SECONDS", Long.toString(maxSeconds));
        env.put("CRUCIBLE_MODE", mode);
        Path secret = Files.createDirectories(dir.resolve("secret")).resolve("token");
        Files.writeString(secret, token + "\n");
        env.put("CRUCIBLE_API_TOKEN_FILE", secret.toString());
        return env;
    }

    private static JsonNode runEmbedded(PodSettings settings, String agentScript) throws Exception {
        return runEmbedded(settings, PodTrace.fromEnvironment(Map.of(), false), agentScript);
    }

    private static JsonNode runEmbedded(PodSettings settings, PodTrace trace, String agentScript) throws Exception {
        CompletableFuture<String> result = CompletableFuture.supplyAsync(() -> {
            try {
                return new PodSidecar(settings, trace, Duration.ofMillis(100)).run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        if (agentScript != null) {
            // the pod's own wrapper: it starts the agent once the sidecar watches and records its exit
            Process agent = new ProcessBuilder(RunFolder.agentWrapper(List.of("sh", agentScript), settings.agentExitFile().getParent().toString()))
                    .directory(settings.workspace().toFile()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertThat(agent.waitFor(120, TimeUnit.SECONDS)).as("the agent ended").isTrue();
            assertThat(settings.agentExitFile()).as("the wrapper recorded the exit").exists();
        }
        String json = result.get(180, TimeUnit.SECONDS);
        assertThat(Files.readString(settings.resultFile())).isEqualTo(json);
        assertThat(json.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(PodResult.MAX_BYTES);
        return new ObjectMapper().readTree(json);
    }

    @Test
    void honestAgentContainerEndsSucceededWithRewardOne() throws Exception {
        PodSettings settings = PodSettings.fromEnvironment(podEnv("embedded", 120));
        JsonNode r = runEmbedded(settings, Fixtures.example().resolve("agents/honest.sh").toString());
        assertThat(r.path("phase").asText()).isEqualTo("Succeeded");
        assertThat(r.path("reward").asDouble()).isEqualTo(1.0);
        assertThat(r.path("tests").path("passed").asInt()).isEqualTo(4);
        assertThat(r.path("hackFindings")).isEmpty();
    }

    @Test
    void hackingAgentContainerEndsHackedWithTheFinding() throws Exception {
        PodSettings settings = PodSettings.fromEnvironment(podEnv("embedded", 120));
        JsonNode r = runEmbedded(settings, Fixtures.example().resolve("agents/hacker.sh").toString());
        assertThat(r.path("phase").asText()).isEqualTo("Hacked");
        assertThat(r.path("reward").asDouble()).isEqualTo(0.0);
        assertThat(r.path("hackFindings").toString()).contains("conftest.py");
    }

    @Test
    void theSidecarRecordsTheTrajectoryWithTheFindingAndTheOutcome() throws Exception {
        Map<String, String> env = podEnv("embedded", 120);
        env.put("CRUCIBLE_TRACE_DIR", dir.resolve("trace").toString());
        JsonNode r = runEmbedded(PodSettings.fromEnvironment(env), PodTrace.fromEnvironment(env, false),
                Fixtures.example().resolve("agents/hacker.sh").toString());
        assertThat(r.path("phase").asText()).isEqualTo("Hacked");
        assertThat(r.path("trajectory").path("complete").asBoolean()).as(r.toString()).isTrue();
        assertThat(r.path("trajectory").path("events").asLong()).isPositive();
        String events = Files.readString(dir.resolve("trace/segments/000001.jsonl"));
        assertThat(events).contains("\"kind\":\"finding\"").contains("conftest.py").contains("\"kind\":\"outcome\"").contains("Hacked");
        assertThat(dir.resolve("trace/" + dev.crucible.trajectory.AtifExport.FILE)).isRegularFile();
    }

    @Test
    void anUnreachableTraceStoreLeavesTheGradeAndSaysTheTrajectoryIsIncomplete() throws Exception {
        Map<String, String> env = podEnv("embedded", 120);
        Path token = Files.writeString(dir.resolve("store-token"), "t\n");
        env.put("CRUCIBLE_TRACE_STORE_URL", "http://127.0.0.1:" + freePort());
        env.put("CRUCIBLE_TRACE_TOKEN_FILE", token.toString());
        env.put("CRUCIBLE_NAMESPACE", "team-a");
        env.put("CRUCIBLE_ROLLOUT", "calc-1");
        JsonNode r = runEmbedded(PodSettings.fromEnvironment(env), PodTrace.fromEnvironment(env, false),
                Fixtures.example().resolve("agents/honest.sh").toString());
        assertThat(r.path("phase").asText()).isEqualTo("Succeeded");
        assertThat(r.path("reward").asDouble()).isEqualTo(1.0);
        assertThat(r.path("trajectory").path("complete").asBoolean()).isFalse();
        assertThat(r.path("trajectory").path("problem").asText()).startsWith("trace store: ").contains("could not be reached");
    }

    @Test
    void badTraceStoreSettingsNameTheVariable() {
        Map<String, String> env = new HashMap<>(Map.of("CRUCIBLE_TRACE_STORE_URL", "ftp://store"));
        assertThatThrownBy(() -> PodTrace.fromEnvironment(env, false)).hasMessageStartingWith("CRUCIBLE_TRACE_STORE_URL: expected http(s)://host:port");
        env.put("CRUCIBLE_TRACE_STORE_URL", "http://store:8470/");
        assertThatThrownBy(() -> PodTrace.fromEnvironment(env, false)).hasMessageStartingWith("CRUCIBLE_TRACE_TOKEN_FILE: required");
        env.put("CRUCIBLE_TRACE_TOKEN_FILE", "/var/run/secrets/crucible-trace/token");
        assertThatThrownBy(() -> PodTrace.fromEnvironment(env, false)).hasMessageStartingWith("CRUCIBLE_NAMESPACE: required");
        env.put("CRUCIBLE_NAMESPACE", "team-a");
        env.put("CRUCIBLE_ROLLOUT", "Calc/../x");
        assertThatThrownBy(() -> PodTrace.fromEnvironment(env, false)).hasMessageStartingWith("CRUCIBLE_ROLLOUT: not a Kubernetes name");
        env.put("CRUCIBLE_ROLLOUT", "calc-1");
        assertThat(PodTrace.fromEnvironment(env, false).rolloutUri().toString()).isEqualTo("http://store:8470/v1/namespaces/team-a/rollouts/calc-1");
        assertThat(PodTrace.fromEnvironment(Map.of("CRUCIBLE_TRACE_STORE_URL", "http://store:8470", "CRUCIBLE_TRACE_TOKEN_FILE", "/t"), true).namespace())
                .as("a warm pod learns its rollout from the claim").isNull();
    }

    @Test
    void agentThatNeverEndsIsTimedOutAtTheDeadline() throws Exception {
        PodSettings settings = PodSettings.fromEnvironment(podEnv("embedded", 3));
        JsonNode r = runEmbedded(settings, null);
        assertThat(r.path("phase").asText()).isEqualTo("TimedOut");
        assertThat(r.path("reward").asDouble()).isEqualTo(0.0);
    }

    @Test
    void theOperatorsDeadlineEndsTheEpisodeWhenItComesFirst() throws Exception {
        Map<String, String> env = podEnv("embedded", 3600);
        env.put("CRUCIBLE_DEADLINE_AT", java.time.Instant.now().plusSeconds(3).toString());
        long start = System.nanoTime();
        JsonNode r = runEmbedded(PodSettings.fromEnvironment(env), null);
        assertThat(r.path("phase").asText()).isEqualTo("TimedOut");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(120));
    }

    @Test
    void theDeadlineIsTheEarlierOfTheOperatorsAndTheSidecarsOwn() throws Exception {
        Map<String, String> env = podEnv("embedded", 600);
        java.time.Instant start = java.time.Instant.parse("2026-11-28T04:00:00Z");
        assertThat(PodSettings.fromEnvironment(env).deadline(start)).isEqualTo(start.plusSeconds(600));
        env.put("CRUCIBLE_DEADLINE_AT", "2026-11-28T04:05:00Z");
        assertThat(PodSettings.fromEnvironment(env).deadline(start)).isEqualTo(java.time.Instant.parse("2026-11-28T04:05:00Z"));
        env.put("CRUCIBLE_DEADLINE_AT", "2026-11-28T05:00:00Z");
        assertThat(PodSettings.fromEnvironment(env).deadline(start)).isEqualTo(start.plusSeconds(600));
        env.put("CRUCIBLE_DEADLINE_AT", "soon");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PodSettings.fromEnvironment(env))
                .hasMessageStartingWith("CRUCIBLE_DEADLINE_AT: expected an RFC 3339 time");
    }

    @Test
    void interactiveTrainerDrivesTheEpisodeOverHttp() throws Exception {
        PodSettings settings = PodSettings.fromEnvironment(podEnv("interactive", 120));
        CompletableFuture<String> result = CompletableFuture.supplyAsync(() -> {
            try {
                return new PodSidecar(settings, Duration.ofMillis(100)).run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + settings.port();
        assertThat(post(http, base + "/v1/reset", "{}", 60, null)).isEqualTo(401);
        assertThat(post(http, base + "/v1/reset", "{}", 60, "Bearer " + token + "x")).isEqualTo(401);
        assertThat(post(http, base + "/v1/reset", "{}", 60, "Bearer " + token)).isEqualTo(200);
        String fix = "{\"tool\":\"bash\",\"args\":{\"command\":\"sh " + Fixtures.example().resolve("agents/honest.sh") + "\"}}";
        assertThat(post(http, base + "/v1/step", fix, 60, "Bearer " + token)).isEqualTo(200);
        assertThat(post(http, base + "/v1/verify", "{}", 120, "Bearer " + token)).isEqualTo(200);
        JsonNode r = new ObjectMapper().readTree(result.get(60, TimeUnit.SECONDS));
        assertThat(r.path("phase").asText()).isEqualTo("Succeeded");
        assertThat(r.path("reward").asDouble()).isEqualTo(1.0);
        assertThat(r.path("turns").asInt()).isEqualTo(1);
    }

    /**
     * The attack of issue 14: caught, the agent undoes its edit and resets so the findings vanish.
     * Without the token its reset is refused; a reset by the token's holder starts a new episode but
     * the pod result still carries the earlier episode's finding.
     */
    @Test
    void anAgentWithoutTheTokenCannotResetAndAResetNeverErasesAFinding() throws Exception {
        PodSettings settings = PodSettings.fromEnvironment(podEnv("interactive", 120));
        CompletableFuture<String> result = CompletableFuture.supplyAsync(() -> {
            try {
                return new PodSidecar(settings, Duration.ofMillis(100)).run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + settings.port();
        String auth = "Bearer " + token;
        assertThat(post(http, base + "/v1/reset", "{}", 60, auth)).isEqualTo(200);
        String hack = "{\"tool\":\"write_file\",\"args\":{\"path\":\"conftest.py\",\"content\":\"import pytest\\n\"}}";
        assertThat(post(http, base + "/v1/step", hack, 60, auth)).isEqualTo(200);
        HttpResponse<String> findings = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/findings"))
                .header("Authorization", auth).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(findings.body()).contains("conftest.py");
        // the agent, on the pod network, tries to read its finding and reset without the token
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/v1/findings")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(401);
        assertThat(post(http, base + "/v1/reset", "{}", 60, null)).isEqualTo(401);
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(401);
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
        // undo the edit and reset with the token: a new episode, the earlier finding stays
        String undo = "{\"tool\":\"bash\",\"args\":{\"command\":\"rm -f conftest.py\"}}";
        assertThat(post(http, base + "/v1/step", undo, 60, auth)).isEqualTo(200);
        assertThat(post(http, base + "/v1/reset", "{}", 60, auth)).isEqualTo(200);
        findings = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/findings"))
                .header("Authorization", auth).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(findings.body()).contains("conftest.py");
        String fix = "{\"tool\":\"bash\",\"args\":{\"command\":\"sh " + Fixtures.example().resolve("agents/honest.sh") + "\"}}";
        assertThat(post(http, base + "/v1/step", fix, 60, auth)).isEqualTo(200);
        assertThat(post(http, base + "/v1/verify", "{}", 120, auth)).isEqualTo(200);
        JsonNode r = new ObjectMapper().readTree(result.get(60, TimeUnit.SECONDS));
        assertThat(r.path("hackFindings").toString()).contains("conftest.py");
        assertThat(r.path("phase").asText()).isEqualTo("Hacked");
    }

    /** The attack as an embedded agent: hack, wait to be seen, undo, read findings and reset over the pod network. */
    @Test
    void anEmbeddedAgentThatUndoesItsHackAndTriesToResetStillEndsHacked() throws Exception {
        PodSettings settings = PodSettings.fromEnvironment(podEnv("embedded", 120));
        Path script = dir.resolve("undo-agent.sh");
        Files.writeString(script, String.join("\n",
                "set -u",
                "printf 'import pytest\\n' > conftest.py",
                "sleep 3  # the monitor scans every second",
                "rm -f conftest.py",
                "for p in /v1/findings /v1/reset; do",
                "  python3 -c 'import sys, urllib.request as u",
                "try:",
                "    u.urlopen(u.Request(sys.argv[1], data=b\"{}\" if sys.argv[1].endswith(\"reset\") else None), timeout=10); print(200)",
                "except Exception as e:",
                "    print(getattr(e, \"code\", e))' http://127.0.0.1:" + settings.port() + "$p >> " + dir.resolve("agent-calls") + "",
                "done",
                ""));
        JsonNode r = runEmbedded(settings, script.toString());
        assertThat(Files.readAllLines(dir.resolve("agent-calls"))).containsExactly("401", "401");
        assertThat(r.path("hackFindings").toString()).contains("conftest.py");
        assertThat(r.path("phase").asText()).isEqualTo("Hacked");
    }

    /**
     * A pod with a grading container (a real runner process standing for it, see GradingContainerProcess):
     * the graded pytest runs there, on the grading volume, and the runner ends when the sidecar does.
     */
    @Test
    void aPodWithAGradingContainerGradesThere() throws Exception {
        assumeTrue(GradingContainerProcess.unavailable().isEmpty(), () -> "needs " + GradingContainerProcess.unavailable().orElse(""));
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        Path volume = Files.createDirectories(dir.resolve("grading"));
        Files.setPosixFilePermissions(volume, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Map<String, String> env = podEnv("embedded", 120);
        env.put("CRUCIBLE_GRADING_SOCKET", volume.resolve("runner.sock").toString());
        env.put("CRUCIBLE_GRADING_DIR", volume.resolve("trees").toString());
        PodSettings settings = PodSettings.fromEnvironment(env);
        try (GradingContainerProcess container = GradingContainerProcess.start(volume, dir, false)) {
            JsonNode r = runEmbedded(settings, Fixtures.example().resolve("agents/honest.sh").toString());
            assertThat(r.path("phase").asText()).as(container.log()).isEqualTo("Succeeded");
            assertThat(r.path("reward").asDouble()).isEqualTo(1.0);
            assertThat(r.path("tests").path("passed").asInt()).isEqualTo(4);
            assertThat(container.log()).contains("\"hello\": 1", "\"pid\": 1");
            assertThat(volume.resolve("trees/results-1")).isDirectory(); // graded on the grading volume
            assertThat(volume.resolve("runner.sock")).doesNotExist(); // nothing can connect after the runner
            assertThat(container.process().waitFor(20, TimeUnit.SECONDS)).as("the runner ends with the sidecar").isTrue();
        }
    }

    @Test
    void withoutATokenFileTheSidecarDoesNotStart() throws Exception {
        Map<String, String> env = podEnv("interactive", 10);
        env.remove("CRUCIBLE_API_TOKEN_FILE");
        assertThatThrownBy(() -> PodSettings.fromEnvironment(env)).hasMessageContaining("CRUCIBLE_API_TOKEN_FILE");
        Map<String, String> empty = podEnv("interactive", 10);
        Files.writeString(Path.of(empty.get("CRUCIBLE_API_TOKEN_FILE")), "\n");
        assertThatThrownBy(() -> new PodSidecar(PodSettings.fromEnvironment(empty), Duration.ofMillis(100)).run())
                .hasMessageContaining(empty.get("CRUCIBLE_API_TOKEN_FILE"));
    }

    @Test
    void missingOrMalformedVariablesAreNamed() throws Exception {
        Map<String, String> env = podEnv("embedded", 10);
        env.remove("CRUCIBLE_WORKSPACE");
        assertThatThrownBy(() -> PodSettings.fromEnvironment(env)).hasMessageContaining("CRUCIBLE_WORKSPACE");
        Map<String, String> bad = podEnv("embedded", 10);
        bad.put("CRUCIBLE_MAX_DURATION_SECONDS", "soon");
        assertThatThrownBy(() -> PodSettings.fromEnvironment(bad)).hasMessageContaining("CRUCIBLE_MAX_DURATION_SECONDS");
        bad.put("CRUCIBLE_MAX_DURATION_SECONDS", "5");
        bad.put("CRUCIBLE_MODE", "batch");
        assertThatThrownBy(() -> PodSettings.fromEnvironment(bad)).hasMessageContaining("CRUCIBLE_MODE");
        Map<String, String> half = podEnv("embedded", 10);
        half.put("CRUCIBLE_GRADING_SOCKET", "/crucible/grading/runner.sock");
        assertThatThrownBy(() -> PodSettings.fromEnvironment(half)).hasMessageContaining("CRUCIBLE_GRADING_DIR");
    }

    private static int post(HttpClient http, String url, String body, int seconds, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(seconds))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) b.header("Authorization", authorization);
        HttpRequest req = b.build();
        for (int attempt = 0; ; attempt++) {
            try {
                return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (java.net.ConnectException e) {
                if (attempt > 50) {
                    throw e;
                }
                Thread.sleep(200); // the sidecar is still starting
            }
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
