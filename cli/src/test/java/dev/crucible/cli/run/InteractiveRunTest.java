package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Interactive mode: a trainer drives reset / step / verify over real HTTP on the port crucible run serves. */
@Timeout(180)
class InteractiveRunTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();
    private String token;

    @Test
    void aTrainerResetsStepsAndVerifiesOverHttp(@TempDir Path dir) throws Exception {
        LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("trainer", "interactive", null, 120));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String base = "http://127.0.0.1:" + port;
        CompletableFuture<LocalRuns.Run> run = CompletableFuture.supplyAsync(() -> LocalRuns.run("-f", dir.resolve("env").toString(),
                "--port", Integer.toString(port), "--out", dir.resolve("out").toString()));
        awaitHealthy(base);
        Path tokenFile = dir.resolve("out/api-token");
        java.nio.file.attribute.PosixFileAttributes attrs = java.nio.file.Files.readAttributes(tokenFile, java.nio.file.attribute.PosixFileAttributes.class);
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(attrs.permissions())).isEqualTo("rw-------");
        token = java.nio.file.Files.readString(tokenFile).strip();
        assertThat(token).hasSizeGreaterThanOrEqualTo(32);
        // without the token (another local user, a process that found the port): refused, nothing happens
        HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/reset"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(401);
        HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/step")).header("Authorization", "Bearer " + token.substring(1))
                .POST(HttpRequest.BodyPublishers.ofString("{\"tool\":\"bash\",\"args\":{\"command\":\"id\"}}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(wrong.statusCode()).isEqualTo(401);

        JsonNode reset = post(base + "/v1/reset", "{}");
        assertThat(reset.path("prompt").asText()).contains("calc.ops.divide");
        // A trainer sends the fix as commands; the script is sent inline, as a remote trainer would
        // (host paths are not visible inside the sandbox when they live under /tmp).
        String fix = java.nio.file.Files.readString(LocalRuns.agent("honest.sh"));
        JsonNode step = post(base + "/v1/step", json.writeValueAsString(java.util.Map.of("tool", "bash", "args", java.util.Map.of(
                "command", fix))));
        assertThat(step.path("exitCode").asInt()).as(step.toString()).isZero();
        assertThat(step.path("observation").asText()).contains("4 passed");
        JsonNode verify = post(base + "/v1/verify", "{}");
        assertThat(verify.path("reward").asDouble()).isEqualTo(1.0);

        LocalRuns.Run r = run.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("Succeeded");
        assertThat(res.path("mode").asText()).isEqualTo("interactive");
        assertThat(res.path("endpoint").asText()).isEqualTo(base);
        assertThat(res.path("steps").asInt()).isEqualTo(1);
        assertThat(res.path("reward").asDouble()).isEqualTo(1.0);
        assertThat(r.out()).contains("environment API on " + base);
        // the token goes to the 0600 file only: the terminal (often a log others can read) names the file
        assertThat(r.out()).doesNotContain(token).contains("environment API token in " + tokenFile + " (mode 0600");

        // the trajectory (issue 36): each call with its tool, arguments, output, exit status, start and duration; the change it made
        java.util.List<dev.crucible.trajectory.TraceEvent> events = new java.util.ArrayList<>();
        dev.crucible.trajectory.TrajectoryReader.read(dir.resolve("out/trajectory"), events::add, p -> { throw new AssertionError(p); });
        assertThat(events).extracting(dev.crucible.trajectory.TraceEvent::kind).containsSubsequence("reset", "step", "verify", "grading", "outcome");
        dev.crucible.trajectory.TraceEvent s = events.stream().filter(e -> "step".equals(e.kind())).findFirst().orElseThrow();
        assertThat(s.step()).isEqualTo(0);
        assertThat(s.text("tool")).isEqualTo("bash");
        assertThat(s.data().get("args").toString()).contains("calc/ops.py");
        assertThat(s.text("output")).contains("4 passed");
        assertThat(s.data()).containsEntry("exitCode", 0).containsKeys("startedAt", "durationMs");
        assertThat(events).anySatisfy(e -> assertThat(e.kind() + " " + e.text("path") + " " + e.text("op")).isEqualTo("file calc/ops.py modified"));
        assertThat(res.at("/trajectory/complete").asBoolean()).isTrue();
    }

    @Test
    void askingForThePortOfAFolderWhoseRolloutIsEmbeddedIsRefused() {
        LocalRuns.Run r = LocalRuns.run("-f", LocalRuns.example().toString(), "--port", "0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--port: serves the environment API of interactive rollouts").contains("environment.yaml");
    }

    @Test
    void aTrainerThatNeverVerifiesTimesOut(@TempDir Path dir) throws Exception {
        LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("idle", "interactive", null, 5)));
        LocalRuns.Run r = LocalRuns.run("-f", dir.resolve("env").toString(), "--out", dir.resolve("out").toString(), "--print-token");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(LocalRuns.json(dir.resolve("out/result.json")).path("phase").asText()).isEqualTo("TimedOut");
        assertThat(r.out()).containsPattern("environment API on http://127\\.0\\.0\\.1:\\d+");
        // --print-token: asked for, the token is on the terminal too
        assertThat(r.out()).contains("environment API token: " + java.nio.file.Files.readString(dir.resolve("out/api-token")).strip() + " ");
        assertThat(java.nio.file.Files.getPosixFilePermissions(dir.resolve("out/api-token")))
                .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    }

    private void awaitHealthy(String base) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                HttpResponse<String> h = http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
                if (h.statusCode() == 200) return;
            } catch (java.io.IOException notYet) {
                if (System.nanoTime() > until) throw notYet;
            }
            Thread.sleep(100);
        }
    }

    private JsonNode post(String url, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json").header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url + " → " + r.body()).isEqualTo(200);
        return json.readTree(r.body());
    }
}
