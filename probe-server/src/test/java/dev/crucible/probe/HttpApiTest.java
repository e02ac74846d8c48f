package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.reward.RewardComposition;
import dev.crucible.probe.serve.BatchingOptions;
import dev.crucible.probe.serve.ProbeHttpServer;
import dev.crucible.probe.serve.ProbeScorer;
import dev.crucible.probe.serve.ScoreItem;
import dev.crucible.probe.serve.ServerLimits;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The probe server over a real socket with the real tiny model and a two-head ensemble. */
class HttpApiTest {
    @TempDir
    static Path dir;
    static Vertx vertx;
    static ProbeScorer scorer;
    static ProbeHttpServer server;
    static PrometheusMeterRegistry registry;
    static String base;
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() throws Exception {
        TestProbes.write(dir, 2, new RewardComposition.HardGate(-7.0));
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // small token budget so concurrent requests are split over several batches
        scorer = ProbeScorer.open(dir, Device.CPU, new BatchingOptions(256, 5), registry);
        vertx = Vertx.vertx();
        server = new ProbeHttpServer(vertx, scorer, registry, new ServerLimits(64 * 1024, 8, 4, 2000, 16_384, 32));
        base = "http://127.0.0.1:" + server.start("127.0.0.1", 0);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        scorer.close();
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    static HttpResponse<String> post(String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/score"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("content-type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void scoresTextAndTurnsWithTheHardGateAndWorstCaseEnsemble() throws Exception {
        HttpResponse<String> r = post("""
                {"items": [
                  {"id": "a", "text": "Fix the off-by-one error in the pagination helper.", "valid": true},
                  {"id": "b", "turns": ["I will read the parser.", "Edited parser.py: flipped a sign."], "valid": false},
                  {"text": "no id and no validity flag"}
                ]}""");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode results = JSON.readTree(r.body()).get("results");
        assertThat(results).hasSize(3);
        JsonNode a = results.get(0);
        assertThat(a.get("id").asText()).isEqualTo("a");
        double[] heads = {a.get("headLogits").get(0).asDouble(), a.get("headLogits").get(1).asDouble()};
        assertThat(heads[0]).isNotEqualTo(heads[1]);
        assertThat(a.get("logit").asDouble()).isEqualTo(Math.min(heads[0], heads[1]));
        assertThat(a.get("probability").asDouble()).isCloseTo(ProbeHead.sigmoid(a.get("logit").asDouble()),
                org.assertj.core.data.Offset.offset(1e-12));
        assertThat(a.get("reward").asDouble()).isEqualTo(a.get("logit").asDouble());
        JsonNode b = results.get(1);
        assertThat(b.get("valid").asBoolean()).isFalse();
        assertThat(b.get("reward").asDouble()).isEqualTo(-7.0);
        assertThat(b.get("logit").asDouble()).isNotEqualTo(-7.0);
        assertThat(results.get(2).get("id").asText()).isEqualTo("2");
        assertThat(results.get(2).get("valid").asBoolean()).isTrue();
    }

    @Test
    void httpScoresEqualDirectScoringOneByOne() throws Exception {
        String text = "Introduce a race between the worker threads that only shows under load.";
        HttpResponse<String> r = post("{\"items\":[{\"id\":\"x\",\"text\":" + JSON.writeValueAsString(text) + "}]}");
        double viaHttp = JSON.readTree(r.body()).get("results").get(0).get("logit").asDouble();
        double direct = scorer.score(List.of(ScoreItem.text("x", text, true))).get().get(0).logit();
        assertThat(viaHttp).isEqualTo(direct);
    }

    @Test
    void concurrentRequestsAreBatchedAndGetTheirOwnAnswers() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            String body = "{\"items\":[{\"id\":\"r" + i + "\",\"text\":\"task number " + i + " " + "word ".repeat(i) + "\"}]}";
            futures.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create(base + "/v1/score"))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (int i = 0; i < 24; i++) {
            HttpResponse<String> r = futures.get(i).get();
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode res = JSON.readTree(r.body()).get("results").get(0);
            assertThat(res.get("id").asText()).isEqualTo("r" + i);
            double alone = scorer.score(List.of(ScoreItem.text("r", "task number " + i + " " + "word ".repeat(i), true)))
                    .get().get(0).logit();
            assertThat(res.get("logit").asDouble()).isCloseTo(alone, org.assertj.core.data.Offset.offset(1e-4));
        }
        String metrics = get("/metrics").body();
        assertThat(metrics).contains("probe_batch_sequences_count").contains("probe_tokens_total");
    }

    @Test
    void headsReadingDifferentLayersAndPoolingsFormOneWorstCaseEnsemble(@TempDir Path mixedDir) throws Exception {
        TestProbes.writeMixed(mixedDir);
        try (ProbeScorer mixed = ProbeScorer.open(mixedDir, Device.CPU, BatchingOptions.DEFAULT,
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry())) {
            assertThat(mixed.model().spec().numHiddenStates()).isEqualTo(5);
            assertThat(mixed.model().spec().hiddenSize()).isEqualTo(64);
            String text = "Fix the off-by-one error in the pagination helper.";
            var r = mixed.score(List.of(ScoreItem.text("a", text, true), ScoreItem.text("b", text, false))).get();
            assertThat(r.get(0).headLogits()).hasSize(2);
            assertThat(r.get(0).logit()).isEqualTo(Math.min(r.get(0).headLogits()[0], r.get(0).headLogits()[1]));
            // head0 reads exactly what the single-layer test probe's head0 reads: same logit
            double single = scorer.score(List.of(ScoreItem.text("a", text, true))).get().get(0).headLogits()[0];
            assertThat(r.get(0).headLogits()[0]).isEqualTo(single);
            assertThat(r.get(0).reward()).isBetween(0.2, 0.8);
            assertThat(r.get(1).reward()).isEqualTo(0.0);   // soft gate: invalid → floor 0
        }
    }

    @Test
    void badInputGets4xxNamingTheField() throws Exception {
        assertError(post("not json"), 400, "body");
        assertError(post("[1,2]"), 400, "body");
        assertError(post("{}"), 400, "items");
        assertError(post("{\"items\": []}"), 400, "items");
        assertError(post("{\"items\": [{\"id\": \"a\"}]}"), 400, "items[0].text");
        assertError(post("{\"items\": [{\"text\": \"x\", \"turns\": [\"y\"]}]}"), 400, "items[0].text");
        assertError(post("{\"items\": [{\"text\": 5}]}"), 400, "items[0].text");
        assertError(post("{\"items\": [{\"text\": \"   \"}]}"), 400, "items[0].text");
        assertError(post("{\"items\": [{\"text\": \"ok\"}, {\"turns\": [\"ok\", 3]}]}"), 400, "items[1].turns[1]");
        assertError(post("{\"items\": [{\"turns\": []}]}"), 400, "items[0].turns");
        assertError(post("{\"items\": [{\"text\": \"ok\", \"valid\": \"yes\"}]}"), 400, "items[0].valid");
        assertError(post("{\"items\": [{\"id\": \"a\", \"text\": \"x\"}, {\"id\": \"a\", \"text\": \"y\"}]}"), 400,
                "items[1].id");
        assertError(post("{\"items\": [" + "{\"text\": \"x\"},".repeat(8) + "{\"text\": \"x\"}]}"), 413, "items");
        assertError(post("{\"items\": [{\"turns\": [\"a\",\"b\",\"c\",\"d\",\"e\"]}]}"), 413, "items[0].turns");
        assertError(post("{\"items\": [{\"text\": \"" + "x".repeat(2001) + "\"}]}"), 413, "items[0].text");
        assertError(post("{\"items\": [{\"text\": \"" + "x".repeat(70_000) + "\"}]}"), 413, "body");
        assertError(get("/v1/nothing"), 404, "path");
    }

    @Test
    void modelsHealthAndMetricsAnswer() throws Exception {
        JsonNode models = JSON.readTree(get("/v1/models").body()).get("models");
        assertThat(models).hasSize(1);
        JsonNode m = models.get(0);
        assertThat(m.get("layer").asInt()).isEqualTo(2);
        assertThat(m.get("pooling").asText()).isEqualTo("mean_full");
        assertThat(m.get("heads")).hasSize(2);
        assertThat(m.get("reward").get("type").asText()).isEqualTo("hard_gate");
        assertThat(m.get("device").asText()).isEqualTo("cpu");
        HttpResponse<String> health = get("/healthz");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(health.body()).get("status").asText()).isEqualTo("ok");
        post("{\"items\":[{\"text\":\"warm\"}]}");
        HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
        assertThat(metrics.body()).contains("probe_forward_seconds").contains("probe_http_score_seconds");
    }

    private static void assertError(HttpResponse<String> r, int status, String field) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        JsonNode n = JSON.readTree(r.body());
        assertThat(n.get("field").asText()).as(r.body()).isEqualTo(field);
        assertThat(n.get("error").asText()).isNotBlank();
    }
}
