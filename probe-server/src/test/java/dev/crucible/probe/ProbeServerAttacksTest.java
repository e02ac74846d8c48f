package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.probe.reward.RewardComposition;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 "Probe server": one in-limit request cost 71 s of CPU and 670 MiB, requests were not capped
 * in number, and a port in use gave a stack trace. The server is its container entry point as its own
 * JVM (as in {@link ServerMainProcessTest}), attacked by a real HTTP client.
 */
@Tag("attacks")
@Timeout(240)
class ProbeServerAttacksTest {
    @TempDir
    Path dir;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    record Server(Process process, int port, StringBuilder log) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) process.destroyForcibly();
        }
    }

    Server start(String... extra) throws Exception {
        TestProbes.write(dir, 1, RewardComposition.of("soft_gate", null, null, null));
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), "dev.crucible.probe.ProbeServerMain", "--model", dir.toString(),
                "--host", "127.0.0.1", "--device", "cpu"));
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Pattern started = Pattern.compile("probe server .* on [0-9.]+:(\\d+)");
        StringBuilder log = new StringBuilder();
        int port = -1;
        String line;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (port < 0 && System.nanoTime() < deadline && (line = out.readLine()) != null) {
            log.append(line).append('\n');
            Matcher m = started.matcher(line);
            if (m.find()) port = Integer.parseInt(m.group(1));
        }
        Thread drain = new Thread(() -> out.lines().forEach(l -> log.append(l).append('\n')));
        drain.setDaemon(true);
        drain.start();
        if (port < 0) p.destroyForcibly();
        assertThat(port).as("the server did not start:\n" + log).isPositive();
        return new Server(p, port, log);
    }

    HttpResponse<String> score(int port, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/score")).timeout(Duration.ofSeconds(90))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String items(int n, int chars) {
        StringBuilder b = new StringBuilder("{\"items\":[");
        String text = "def f(x): return x + 1 ".repeat(chars / 23 + 1).substring(0, chars);
        for (int i = 0; i < n; i++) b.append(i == 0 ? "" : ",").append("{\"id\":\"i").append(i).append("\",\"text\":\"").append(text).append("\"}");
        return b.append("]}").toString();
    }

    // Attack: one request inside the size limits (items, characters) that costs minutes of CPU.
    // Must hold: a request over the per-request compute budget (tokens) is refused at once with 413 naming the budget.
    @Test
    void aRequestOverTheComputeBudgetIsRefused() throws Exception {
        try (Server s = start("--max-request-tokens", "4096")) { // interface: per-request token budget option
            long t0 = System.nanoTime();
            HttpResponse<String> r = score(s.port(), items(64, 4000)); // ~64 x 1000 tokens, well under maxItems / maxCharsPerTurn
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
            assertThat(r.body()).containsIgnoringCase("token");
            assertThat(ms).as("refused before any compute").isLessThan(5000);
        }
    }

    // Attack: many in-budget requests at once (memory grew from 153 to 826 MiB).
    // Must hold: past the concurrency cap requests get 429/503 at once; none fails with 500; the server stays healthy.
    @Test
    void concurrentRequestsPastTheCapAreTurnedAway() throws Exception {
        try (Server s = start("--max-concurrent", "2")) { // interface: concurrency cap option
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                calls.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return score(s.port(), items(16, 2000)).statusCode();
                    } catch (Exception e) {
                        return -1;
                    }
                }));
            }
            List<Integer> codes = calls.stream().map(CompletableFuture::join).toList();
            assertThat(codes).as("status codes").doesNotContain(500, -1).contains(200).containsAnyOf(429, 503);
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
        }
    }

    // Attack (robustness): starting on a port that is already in use.
    // Must hold: the server exits non-zero with one line naming the port, no stack trace.
    @Test
    void aPortInUseIsAOneLineError() throws Exception {
        TestProbes.write(dir, 1, RewardComposition.of("soft_gate", null, null, null));
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), "dev.crucible.probe.ProbeServerMain", "--model", dir.toString(),
                    "--host", "127.0.0.1", "--port", Integer.toString(taken.getLocalPort()), "--device", "cpu")
                    .redirectErrorStream(true).start();
            CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                } catch (java.io.IOException e) {
                    return "(output unreadable: " + e.getMessage() + ")";
                }
            });
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            if (!ended) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            String out = output.get(10, TimeUnit.SECONDS);
            assertThat(ended).as("the server must exit, not hang, on a port in use: " + out).isTrue();
            assertThat(p.exitValue()).isNotZero();
            assertThat(out).as("no stack trace").doesNotContain("Exception in thread", "\tat ", "Caused by");
            // what is left besides logging (SLF4J notices, java.util.logging INFO records) is the error: one line
            List<String> lines = out.lines().filter(l -> !l.isBlank() && !l.startsWith("SLF4J") && !l.startsWith("INFO:")
                    && !l.matches("^[A-Z][a-z]{2} \\d{1,2}, \\d{4} .*")).toList();
            assertThat(lines).as(out).hasSize(1);
            assertThat(lines.get(0)).contains(Integer.toString(taken.getLocalPort()));
        }
    }
}
