package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interactive API's life around the episode (issue 38): it listens, with its token file written, while the environment's
 * setup still runs (503 "setting up" until then, so a trainer need not poll for the file), and after /v1/verify it still
 * answers findings and the report until POST /v1/close, while reset and step are refused.
 */
@Timeout(240)
class InteractiveApiLifecycleTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void theTokenIsThereDuringSetupAndFindingsAfterVerify(@TempDir Path dir) throws Exception {
        Path env = LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("trainer", "interactive", null, 180));
        Path m = env.resolve("environment.yaml");
        Files.writeString(m, Files.readString(m).replace("python3 -m pip --version >/dev/null 2>&1 || true", "sleep 8"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String base = "http://127.0.0.1:" + port;
        CompletableFuture<LocalRuns.Run> run = CompletableFuture.supplyAsync(() -> LocalRuns.run("-f", env.toString(),
                "--port", Integer.toString(port), "--out", dir.resolve("out").toString()));
        // the token file is written before setup (which sleeps 8 s): once it is there, the API answers that it is setting up
        Path tokenFile = dir.resolve("out/api-token");
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.exists(tokenFile) || Files.size(tokenFile) == 0) {
            assertThat(System.nanoTime()).as("token file written").isLessThan(until);
            Thread.sleep(50);
        }
        assertThat(Files.getPosixFilePermissions(tokenFile)).isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        String token = Files.readString(tokenFile).strip();
        HttpResponse<String> early = send(base + "/v1/reset", token, "{}");
        assertThat(early.statusCode()).as(early.body()).isEqualTo(503);
        assertThat(early.body()).contains("setting up");
        assertThat(early.headers().firstValue("Retry-After")).hasValue("1");
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(503);
        assertThat(json.readTree(health.body()).path("state").asText()).isEqualTo("SETTING_UP");
        assertThat(send(base + "/v1/reset", "wrong" + token, "{}").statusCode()).as("the token is checked first").isEqualTo(401);

        JsonNode reset = awaitReady(base, token);
        assertThat(reset.path("prompt").asText()).contains("calc.ops.divide");
        HttpResponse<String> hack = send(base + "/v1/step", token, json.writeValueAsString(java.util.Map.of("tool", "write_file", "args",
                java.util.Map.of("path", "calc/conftest.py", "content", "import pytest\n"))));
        assertThat(hack.statusCode()).as(hack.body()).isEqualTo(200);
        HttpResponse<String> verify = send(base + "/v1/verify", token, "{}");
        assertThat(verify.statusCode()).as(verify.body()).isEqualTo(200);
        JsonNode report = json.readTree(verify.body());
        assertThat(report.path("phase").asText()).as("the verify answer carries the phase").isNotEmpty();

        // after verify: result.json is written, yet the API still answers the findings and the same report
        until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(dir.resolve("out/result.json"))) {
            assertThat(System.nanoTime()).as("result.json written").isLessThan(until);
            Thread.sleep(50);
        }
        HttpResponse<String> findings = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/findings")).header("Authorization", "Bearer " + token)
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(findings.statusCode()).as(findings.body()).isEqualTo(200);
        assertThat(report.path("hackFindings").size()).as(verify.body()).isPositive();
        assertThat(json.readTree(findings.body()).path("findings").toString()).isEqualTo(report.path("hackFindings").toString());
        assertThat(send(base + "/v1/verify", token, "{}").body()).isEqualTo(verify.body());
        HttpResponse<String> step = send(base + "/v1/step", token, "{\"tool\":\"bash\",\"args\":{\"command\":\"true\"}}");
        assertThat(step.statusCode()).isEqualTo(409);
        assertThat(step.body()).contains("verified");
        assertThat(send(base + "/v1/reset", token, "{}").statusCode()).isEqualTo(409);
        assertThat(run).as("the run waits for /v1/close (or its grace period)").isNotDone();
        HttpResponse<String> close = send(base + "/v1/close", token, "");
        assertThat(close.statusCode()).as(close.body()).isEqualTo(200);
        LocalRuns.Run r = run.get(30, TimeUnit.SECONDS);
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(LocalRuns.json(dir.resolve("out/result.json")).path("phase").asText()).isEqualTo(report.path("phase").asText());
    }

    private JsonNode awaitReady(String base, String token) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            HttpResponse<String> r = send(base + "/v1/reset", token, "{}");
            if (r.statusCode() == 200) return json.readTree(r.body());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
            assertThat(System.nanoTime()).as("ready after setup").isLessThan(until);
            Thread.sleep(100);
        }
    }

    private HttpResponse<String> send(String url, String token, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
