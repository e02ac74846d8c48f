package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.probe.model.Device;
import dev.crucible.probe.reward.RewardComposition;
import dev.crucible.probe.serve.BatchingOptions;
import dev.crucible.probe.serve.ProbeHttpServer;
import dev.crucible.probe.serve.ProbeScorer;
import dev.crucible.probe.serve.ServerLimits;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The compute budget per request, the concurrency cap, and a port in use, against the real server. */
class ServingLimitsTest {
    @TempDir
    static Path dir;
    static Vertx vertx;
    static ProbeScorer scorer;
    static ProbeHttpServer server;
    static int port;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        TestProbes.write(dir, 1, new RewardComposition.HardGate(-7.0));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        scorer = ProbeScorer.open(dir, Device.CPU, new BatchingOptions(256, 5), registry);
        vertx = Vertx.vertx();
        // 40 tokens per request, one request at a time
        server = new ProbeHttpServer(vertx, scorer, registry, new ServerLimits(64 * 1024, 8, 4, 2000, 40, 1));
        port = server.start("127.0.0.1", 0);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        scorer.close();
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    static HttpResponse<String> post(String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/score"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aRequestOverTheTokenBudgetIsRefusedBeforeAnyForwardPass() throws Exception {
        assertThat(post("{\"items\":[{\"text\":\"hello world\"}]}").statusCode()).isEqualTo(200);
        String words = "alpha beta gamma delta epsilon zeta eta theta iota kappa ".repeat(3);
        HttpResponse<String> r = post("{\"items\":[{\"text\":\"" + words + "\"},{\"text\":\"" + words + "\"}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
        assertThat(r.body()).contains("\"field\":\"items\"").contains("at most 40 per request");
    }

    @Test
    void oneRequestOverTheConcurrencyCapGets503WithRetryAfter() throws Exception {
        // A client that sent its headers but not its body holds the only slot.
        try (Socket slow = new Socket("127.0.0.1", port)) {
            OutputStream out = slow.getOutputStream();
            out.write(("POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"items\"")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(300);
            HttpResponse<String> busy = post("{\"items\":[{\"text\":\"hello\"}]}");
            assertThat(busy.statusCode()).as(busy.body()).isEqualTo(503);
            assertThat(busy.headers().firstValue("Retry-After")).contains("1");
            assertThat(busy.body()).contains("busy");
        }
        // The slot comes back when that connection goes away.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int status = 0;
        while (System.nanoTime() < deadline && (status = post("{\"items\":[{\"text\":\"hello\"}]}").statusCode()) != 200) {
            Thread.sleep(50);
        }
        assertThat(status).isEqualTo(200);
    }

    @Test
    void aPortInUseIsOneLineAndExitStatusOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                    "dev.crucible.probe.ProbeServerMain", "--model", dir.toString(), "--port", String.valueOf(taken.getLocalPort()),
                    "--device", "cpu")).redirectErrorStream(true).start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(p.exitValue()).isEqualTo(1);
            assertThat(output).isEqualTo("probe-server: port " + taken.getLocalPort()
                    + " on 127.0.0.1 is already in use (another probe server?); pick another with --port");
        }
    }
}
