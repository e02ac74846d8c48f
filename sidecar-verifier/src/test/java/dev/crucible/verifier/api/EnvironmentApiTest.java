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
    final ApiToken token = ApiToken.generate();
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        holder = new EpisodeHolder(env, env.workspacePath().orElseThrow(),
                EpisodeOptions.defaults().withIntervals(Duration.ofMillis(200), Duration.ofMillis(50))
                        .withStepLimits(1000, Duration.ofSeconds(5), Duration.ofSeconds(10), 0));
        vertx = Vertx.vertx();
        api = new EnvironmentApi(vertx, holder, new SidecarMetrics(holder::monitorCpuSeconds), 4096, token);
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
                .header("content-type", "application/json").header("Authorization", "Bearer " + token.value()).build();
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
                .header("Authorization", "Bearer " + token.value()).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws Exception { return Json.MAPPER.readTree(r.body()); }

    @Test
    void aFrameworkHandsInItsStepsOverTheApiAndAMalformedDocumentChangesNothing() throws Exception {
        String doc = """
                {"schema_version": "ATIF-v1.8", "agent": {"name": "mini-swe-agent"}, "steps": [
                 {"step_id": 1, "source": "user", "message": "fix divide"},
                 {"step_id": 2, "source": "agent", "message": "running the tests", "reasoning_content": "look first",
                  "tool_calls": [{"tool_call_id": "c1", "function_name": "bash", "arguments": {"command": "pytest -q"}}]}]}""";
        assertThat(post("/v1/trajectory", doc).statusCode()).as("no trajectory recorded here").isEqualTo(404);
        var trajectory = dev.crucible.verifier.trace.EpisodeTrajectory.open(dir.resolve("trajectory"), "api-test", false);
        trajectory.observe(holder, api);
        HttpResponse<String> ok = post("/v1/trajectory", doc);
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(json(ok).get("merged").asInt()).isEqualTo(2);
        HttpResponse<String> bad = post("/v1/trajectory", doc.replace("\"source\": \"agent\"", "\"source\": \"robot\""));
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(json(bad).get("error").asText()).contains("POST /v1/trajectory: steps[1].source");
        assertThat(post("/v1/trajectory", "not json").statusCode()).isEqualTo(400);
        trajectory.trace().recorder().close();
        assertThat(json(post("/v1/trajectory", doc)).get("merged").asInt()).as("the run's recorder is closed: nothing stored, and it says so").isZero();
        java.util.List<dev.crucible.trajectory.TraceEvent> steps = new java.util.ArrayList<>();
        dev.crucible.trajectory.TrajectoryReader.read(dir.resolve("trajectory"), e -> {
            if (e.kind().equals(dev.crucible.trajectory.EventKind.AGENT_STEP)) steps.add(e);
        }, p -> { });
        assertThat(steps).as("the refused documents added nothing").hasSize(2);
        assertThat(steps.get(1).data().toString()).contains("running the tests", "pytest -q");
    }

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
        assertThat(v.get("phase").asText()).as("the phase result.json will have, in the answer").isEqualTo("Succeeded");
        assertThat(v.get("tests").get("passed").asInt()).isEqualTo(4);
        assertThat(v.get("hackFindings")).isEmpty();
        assertThat(post("/v1/step", "{\"tool\":\"list\"}").statusCode()).isEqualTo(409);
        assertThat(get("/metrics").body()).contains("crucible_step_seconds").contains("crucible_last_reward 1.0");
        assertThat(json(get("/healthz")).get("state").asText()).isEqualTo("GRADED");
    }

    @Test
    void aRefusedStepUsesNoStepIndexAndBashTakesAFolder() throws Exception {
        post("/v1/reset", null);
        HttpResponse<String> refused = post("/v1/step", "{\"tool\":\"read_file\",\"args\":{}}");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(json(refused).get("error").asText()).contains("args.path");
        HttpResponse<String> pwd = post("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"pwd\",\"cwd\":\"calc\"}}");
        assertThat(json(pwd).get("stepIndex").asInt()).as("the 400 ran nothing and used no index").isZero();
        assertThat(json(pwd).get("observation").asText().strip()).endsWith("/calc");
        assertThat(json(pwd).get("rewardFloored").asBoolean()).as("an honest step floors nothing").isFalse();
        HttpResponse<String> missing = post("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"echo never\",\"cwd\":\"no'such\"}}");
        // the folder does not exist: the command never runs (1 from the cd; a fresh-clone CI once saw 127, observation unknown)
        assertThat(json(missing).get("exitCode").asInt()).as(missing.body()).isNotZero();
        assertThat(json(missing).get("observation").asText()).as(missing.body()).doesNotContain("never");
        assertThat(json(missing).get("stepIndex").asInt()).isEqualTo(1);
    }

    @Test
    void closingWaitsForTheAnswerInFlight() throws Exception {
        // The CLI closes the API the moment /v1/verify grades; the answer being written must still arrive.
        post("/v1/reset", null);
        CompletableFuture<HttpResponse<String>> slow = http.sendAsync(request("/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":\"sleep 1; echo slow\"}}"),
                HttpResponse.BodyHandlers.ofString());
        Thread.sleep(300);
        api.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        HttpResponse<String> answer = slow.get(10, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(json(answer).get("observation").asText()).contains("slow");
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
        assertThat(json(escape).get("error").asText()).isEqualTo("args.path: '../environment.yaml' leaves the workspace through '..'");
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

    @Test
    void everyEndpointButHealthzNeedsTheToken() throws Exception {
        String base = "http://127.0.0.1:" + api.port();
        HttpResponse<String> none = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/reset")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        for (String wrong : new String[] {"Bearer " + token.value() + "x", "Bearer " + token.value().substring(1), token.value(), "Basic " + token.value()}) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/reset")).header("Authorization", wrong)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(wrong).isEqualTo(401);
        }
        for (String path : new String[] {"/v1/findings", "/metrics", "/v1/nope"}) {
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.discarding()).statusCode())
                    .as(path).isEqualTo(401);
        }
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(), HttpResponse.BodyHandlers.discarding()).statusCode())
                .isEqualTo(200);
        assertThat(holder.state()).isEqualTo("NEW"); // nothing the refused calls asked for happened
        assertThat(post("/v1/reset", null).statusCode()).isEqualTo(200);
    }

    @Test
    void badPathsGet400NamingTheField() throws Exception {
        post("/v1/reset", null);
        HttpResponse<String> nul = post("/v1/step", "{\"tool\":\"read_file\",\"args\":{\"path\":\"calc/ops.py\\u0000x\"}}");
        assertThat(nul.statusCode()).as(nul.body()).isEqualTo(400);
        assertThat(json(nul).get("error").asText()).isEqualTo("args.path: 'calc/ops.py\\0x' contains a NUL byte");
        HttpResponse<String> nulWrite = post("/v1/step", "{\"tool\":\"write_file\",\"args\":{\"path\":\"a\\u0000\",\"content\":\"x\"}}");
        assertThat(nulWrite.statusCode()).isEqualTo(400);
        HttpResponse<String> up = post("/v1/step", "{\"tool\":\"write_file\",\"args\":{\"path\":\"calc/../../x\",\"content\":\"x\"}}");
        assertThat(up.statusCode()).isEqualTo(400);
        assertThat(json(up).get("error").asText()).startsWith("args.path: ").contains("'..'");
        assertThat(dir.resolve("x")).doesNotExist();
        HttpResponse<String> abs = post("/v1/step", "{\"tool\":\"list\",\"args\":{\"path\":\"/etc\"}}");
        assertThat(abs.statusCode()).isEqualTo(400);
        assertThat(json(abs).get("error").asText()).startsWith("args.path: '/etc' is absolute");
    }

    /** Issue 14: `ln -s /outside/x dang; write_file dang` created a host file. */
    @Test
    void aDanglingLinkPlantedByTheAgentIsNotWrittenThrough() throws Exception {
        post("/v1/reset", null);
        Path outside = java.nio.file.Files.createDirectories(dir.resolve("outside"));
        String ln = Json.write(java.util.Map.of("tool", "bash", "args", java.util.Map.of("command",
                "ln -s " + outside.resolve("x") + " dang && ln -s " + outside + " notes")), false);
        assertThat(json(post("/v1/step", ln)).get("exitCode").asInt()).isZero();
        HttpResponse<String> w = post("/v1/step", "{\"tool\":\"write_file\",\"args\":{\"path\":\"dang\",\"content\":\"pwned\"}}");
        assertThat(w.statusCode()).as(w.body()).isEqualTo(400);
        assertThat(json(w).get("error").asText()).startsWith("args.path: 'dang'").contains("outside the workspace");
        HttpResponse<String> through = post("/v1/step", "{\"tool\":\"write_file\",\"args\":{\"path\":\"notes/deep/hint.txt\",\"content\":\"x\"}}");
        assertThat(through.statusCode()).isEqualTo(400);
        HttpResponse<String> edit = post("/v1/step", "{\"tool\":\"edit\",\"args\":{\"path\":\"dang\",\"old_str\":\"a\",\"new_str\":\"b\"}}");
        assertThat(edit.statusCode()).isEqualTo(400);
        assertThat(post("/v1/step", "{\"tool\":\"list\",\"args\":{\"path\":\"notes\"}}").statusCode()).isEqualTo(400);
        try (var l = java.nio.file.Files.list(outside)) {
            assertThat(l).isEmpty();
        }
        // a link that stays inside keeps working
        String inside = Json.write(java.util.Map.of("tool", "bash", "args", java.util.Map.of("command", "ln -s calc/ops.py ops-link")), false);
        post("/v1/step", inside);
        assertThat(json(post("/v1/step", "{\"tool\":\"read_file\",\"args\":{\"path\":\"ops-link\"}}")).get("observation").asText())
                .contains("def divide");
    }
}
