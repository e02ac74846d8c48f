package dev.crucible.verifier.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.Environment;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.Json;
import dev.crucible.verifier.support.Fixtures;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The environment API over a real socket. */
class EnvironmentApiTest {
    @TempDir
    Path dir;
    Vertx vertx;
    EpisodeHolder holder;
    EnvironmentApi api;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        holder = new EpisodeHolder(env, env.workspacePath().orElseThrow(),
                EpisodeOptions.defaults().withIntervals(Duration.ofMillis(200), Duration.ofMillis(50))
                        .withStepLimits(1000, Duration.ofSeconds(5), Duration.ofSeconds(10), 0));
        vertx = Vertx.vertx();
        api = new EnvironmentApi(vertx, holder, new SidecarMetrics(holder::monitorCpuSeconds), 4096);
        api.listen("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        api.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        holder.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(request(path, body), HttpResponse.BodyHandlers.ofString());
    }

    HttpRequest request(String path, String body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("content-type", "application/json").build();
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws Exception { return Json.MAPPER.readTree(r.body()); }

    @Test
    void fullEpisodeOverHttp() throws Exception {
        assertThat(post("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"ls\"}}").statusCode()).isEqualTo(409);
        HttpResponse<String> reset = post("/v1/reset", null);
        assertThat(reset.statusCode()).isEqualTo(200);
        assertThat(json(reset).get("prompt").asText()).contains("divide");
        HttpResponse<String> ls = post("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"ls calc\"}}");
        assertThat(json(ls).get("observation").asText()).contains("ops.py");
        assertThat(json(ls).get("exitCode").asInt()).isZero();
        String edit = Json.write(java.util.Map.of("tool", "edit", "path", "calc/ops.py", "old_str", "    return abs(a) / abs(b)",
                "new_str", "    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b"), false);
        assertThat(json(post("/v1/step", edit)).get("observation").asText()).startsWith("edited");
        HttpResponse<String> verify = post("/v1/verify", null);
        assertThat(verify.statusCode()).isEqualTo(200);
        JsonNode v = json(verify);
        assertThat(v.get("reward").asDouble()).isEqualTo(1.0);
        assertThat(v.get("verdict").asText()).isEqualTo("pass");
        assertThat(v.get("tests").get("passed").asInt()).isEqualTo(4);
        assertThat(v.get("hackFindings")).isEmpty();
        assertThat(post("/v1/step", "{\"tool\":\"list\"}").statusCode()).isEqualTo(409);
        assertThat(get("/metrics").body()).contains("crucible_step_seconds").contains("crucible_last_reward 1.0");
        assertThat(json(get("/healthz")).get("state").asText()).isEqualTo("GRADED");
    }

    @Test
    void concurrentStepGets409() throws Exception {
        post("/v1/reset", null);
        CompletableFuture<HttpResponse<String>> slow = http.sendAsync(request("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"sleep 3; echo slow\"}}"),
                HttpResponse.BodyHandlers.ofString());
        Thread.sleep(1000);
        HttpResponse<String> second = post("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"echo fast\"}}");
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(json(second).get("error").asText()).contains("one at a time");
        assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(post("/v1/verify", null).statusCode()).isEqualTo(200);
    }

    @Test
    void badInputGetsClear4xx() throws Exception {
        post("/v1/reset", null);
        assertThat(post("/v1/step", "{not json").statusCode()).isEqualTo(400);
        HttpResponse<String> noTool = post("/v1/step", "{\"args\":{}}");
        assertThat(noTool.statusCode()).isEqualTo(400);
        assertThat(json(noTool).get("error").asText()).startsWith("tool:");
        HttpResponse<String> unknown = post("/v1/step", "{\"tool\":\"rm_rf\"}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(json(unknown).get("error").asText()).contains("rm_rf");
        HttpResponse<String> missing = post("/v1/step", "{\"tool\":\"read_file\",\"args\":{}}");
        assertThat(json(missing).get("error").asText()).isEqualTo("args.path: required for tool read_file");
        HttpResponse<String> escape = post("/v1/step", "{\"tool\":\"read_file\",\"args\":{\"path\":\"../environment.yaml\"}}");
        assertThat(escape.statusCode()).isEqualTo(400);
        assertThat(json(escape).get("error").asText()).contains("outside the workspace");
        HttpResponse<String> big = post("/v1/step", "{\"tool\":\"write_file\",\"args\":{\"path\":\"x\",\"content\":\"" + "a".repeat(10_000) + "\"}}");
        assertThat(big.statusCode()).isEqualTo(413);
        assertThat(get("/v1/nope").statusCode()).isEqualTo(404);
    }

    @Test
    void outputIsTruncatedAndTimeoutsKill() throws Exception {
        post("/v1/reset", null);
        JsonNode big = json(post("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"yes | head -c 100000\"}}"));
        assertThat(big.get("truncated").asBoolean()).isTrue();
        assertThat(big.get("observation").asText()).hasSizeLessThan(1200);
        long t0 = System.nanoTime();
        JsonNode slow = json(post("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"sleep 30\",\"timeoutSeconds\":1}}"));
        assertThat(slow.get("exitCode").asInt()).isEqualTo(-1);
        assertThat(slow.get("observation").asText()).contains("timed out");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5_000);
        JsonNode findings = json(get("/v1/findings"));
        assertThat(findings.get("findings")).isEmpty();
    }
}
