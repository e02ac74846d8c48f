package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.reward.RewardComposition;
import dev.crucible.probe.serve.ServerLimits;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the largest request the default budget allows costs the server (its own JVM, measured from
 * /proc): CPU seconds and resident memory before and after. Before the budget, one in-limit request
 * (512 items x 256 turns) cost 71 s of CPU and grew the server from 153 to 826 MiB.
 */
class LargestRequestCostTest {

    @Test
    void theLargestInBudgetRequestStaysCheap(@TempDir Path dir) throws Exception {
        TestProbes.write(dir, 1, RewardComposition.of("soft_gate", null, null, null));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                "dev.crucible.probe.ProbeServerMain", "--model", dir.toString(), "--port", "0", "--device", "cpu"))
                .redirectErrorStream(true).start();
        try {
            int port = awaitPort(p);
            HttpClient http = HttpClient.newHttpClient();
            ServerLimits d = ServerLimits.DEFAULT;
            // warm-up (class loading, ONNX session) so the figures below are the request's own
            assertThat(score(http, port, body(1, 8)).statusCode()).isEqualTo(200);
            double cpu0 = cpuSeconds(p.pid());
            long rss0 = status(p.pid(), "VmRSS");
            // 32 items x one turn cut at the model's 512 tokens = 16384 tokens, the default budget
            int items = d.maxTokensPerRequest() / 512;
            long t0 = System.nanoTime();
            HttpResponse<String> r = score(http, port, body(items, 700));
            double wall = (System.nanoTime() - t0) / 1e9;
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            long tokens = 0;
            for (JsonNode n : new ObjectMapper().readTree(r.body()).get("results")) {
                tokens += n.get("tokens").asLong();
            }
            double cpu = cpuSeconds(p.pid()) - cpu0;
            long rss1 = status(p.pid(), "VmRSS");
            long hwm = status(p.pid(), "VmHWM");
            System.out.printf("largest in-budget request: items=%d tokens=%d wall_s=%.2f cpu_s=%.2f rss_mib_before=%d"
                    + " rss_mib_after=%d peak_rss_mib=%d%n", items, tokens, wall, cpu, rss0 / 1024, rss1 / 1024, hwm / 1024);
            assertThat(tokens).isLessThanOrEqualTo(d.maxTokensPerRequest());
            assertThat(cpu).as("CPU seconds for the largest in-budget request").isLessThan(30);

            HttpResponse<String> over = score(http, port, body(items + 1, 700));
            assertThat(over.statusCode()).as(over.body()).isEqualTo(413);
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static String body(int items, int words) {
        StringBuilder b = new StringBuilder("{\"items\":[");
        for (int i = 0; i < items; i++) {
            StringBuilder t = new StringBuilder();
            for (int w = 0; w < words; w++) {
                t.append("w").append((w * 7 + i) % 97).append(' ');
            }
            b.append(i == 0 ? "" : ",").append("{\"id\":\"i").append(i).append("\",\"text\":\"").append(t).append("\"}");
        }
        return b.append("]}").toString();
    }

    private static HttpResponse<String> score(HttpClient http, int port, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/score"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int awaitPort(Process p) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Pattern started = Pattern.compile("probe server .* on 127\\.0\\.0\\.1:(\\d+)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        String line;
        StringBuilder log = new StringBuilder();
        while (System.nanoTime() < deadline && (line = out.readLine()) != null) {
            log.append(line).append('\n');
            Matcher m = started.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> {
                    try {
                        while (out.readLine() != null) {
                            // keep the pipe empty
                        }
                    } catch (java.io.IOException ignored) {
                        // server gone
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IllegalStateException("server did not start:\n" + log);
    }

    private static double cpuSeconds(long pid) throws Exception {
        String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime + stime, USER_HZ = 100
    }

    private static long status(long pid, String key) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
