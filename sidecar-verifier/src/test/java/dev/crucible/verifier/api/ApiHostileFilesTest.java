package dev.crucible.verifier.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.Environment;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.Json;
import dev.crucible.verifier.support.Fixtures;
import io.vertx.core.Vertx;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * rt34 api-write-fifo and api-read-sparse over a real socket: the file tools on FIFOs the agent made and on a huge
 * sparse file answer at once with a 400 naming the path and what it is, and the episode still verifies afterwards.
 * Before: write_file on a FIFO blocked the host for good (every later step 409), edit on a 6 GiB sparse file read it whole.
 */
class ApiHostileFilesTest {
    @TempDir
    Path dir;
    Vertx vertx;
    EpisodeHolder holder;
    EnvironmentApi api;
    Path workspace;
    final ApiToken token = ApiToken.generate();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        workspace = env.workspacePath().orElseThrow();
        holder = new EpisodeHolder(env, workspace,
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

    HttpResponse<String> step(String tool, String args) throws Exception {
        String body = "{\"tool\":\"" + tool + "\",\"args\":" + args + "}";
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/v1/step"))
                .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("content-type", "application/json").header("Authorization", "Bearer " + token.value()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Bearer " + token.value()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Timeout(120)
    void fileToolsRefuseFifosAtOnceAndTheEpisodeStillVerifies() throws Exception {
        assertThat(post("/v1/reset").statusCode()).isEqualTo(200);
        HttpResponse<String> made = step("bash", "{\"command\":\"mkfifo out.txt in.txt && mv calc/ops.py calc/ops.py.bak && mkfifo calc/ops.py\"}");
        assertThat(json(made).get("exitCode").asInt()).as(made.body()).isZero();
        for (String[] call : new String[][] {
                {"write_file", "{\"path\":\"out.txt\",\"content\":\"x\"}", "out.txt"},
                {"edit", "{\"path\":\"calc/ops.py\",\"old_str\":\"a\",\"new_str\":\"b\"}", "calc/ops.py"},
                {"read_file", "{\"path\":\"in.txt\"}", "in.txt"},
                {"list", "{\"path\":\"in.txt\"}", "in.txt"}}) {
            long t0 = System.nanoTime();
            HttpResponse<String> r = step(call[0], call[1]);
            assertThat(r.statusCode()).as(call[0] + ": " + r.body()).isEqualTo(400);
            assertThat(r.body()).as(call[0]).contains(call[2]).contains("FIFO");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as(call[0]).isLessThan(Duration.ofSeconds(5));
        }
        assertThat(Files.isRegularFile(workspace.resolve("out.txt"))).isFalse();
        // the host is not stuck: a later step runs and the episode verifies
        assertThat(step("bash", "{\"command\":\"echo next\"}").statusCode()).isEqualTo(200);
        assertThat(post("/v1/verify").statusCode()).isEqualTo(200);
    }

    @Test
    @Timeout(120)
    void aHugeSparseFileIsReadToTheBoundAndEditRefusesIt() throws Exception {
        assertThat(post("/v1/reset").statusCode()).isEqualTo(200);
        try (RandomAccessFile f = new RandomAccessFile(workspace.resolve("big.txt").toFile(), "rw")) {
            f.setLength(6L << 30); // 6 GiB of holes: no disk used
        }
        HttpResponse<String> read = step("read_file", "{\"path\":\"big.txt\"}");
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(json(read).get("truncated").asBoolean()).isTrue();
        long t0 = System.nanoTime();
        HttpResponse<String> edit = step("edit", "{\"path\":\"big.txt\",\"old_str\":\"a\",\"new_str\":\"b\"}");
        assertThat(edit.statusCode()).as(edit.body()).isEqualTo(400);
        assertThat(edit.body()).contains("big.txt").contains("larger than").contains("edit reads at most");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        assertThat(post("/v1/verify").statusCode()).isEqualTo(200);
    }

    static JsonNode json(HttpResponse<String> r) throws Exception { return Json.MAPPER.readTree(r.body()); }
}
