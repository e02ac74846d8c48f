package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.probe.reward.RewardComposition;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The container entry point as its own JVM process: starts from a directory, serves, stops on SIGTERM. */
class ServerMainProcessTest {

    @Test
    void serverMainStartsFromAProbeDirectoryAndAnswers(@TempDir Path dir) throws Exception {
        TestProbes.write(dir, 1, RewardComposition.of("soft_gate", null, null, null));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                "dev.crucible.probe.ProbeServerMain", "--model", dir.toString(), "--port", "0",
                "--host", "127.0.0.1", "--device", "cpu")).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            Pattern started = Pattern.compile("probe server .* on 127\\.0\\.0\\.1:(\\d+)");
            int port = -1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String line;
            StringBuilder log = new StringBuilder();
            while (port < 0 && System.nanoTime() < deadline && (line = out.readLine()) != null) {
                log.append(line).append('\n');
                Matcher m = started.matcher(line);
                if (m.find()) {
                    port = Integer.parseInt(m.group(1));
                }
            }
            assertThat(port).as(log.toString()).isPositive();
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            HttpResponse<String> score = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/score"))
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"items\":[{\"id\":\"a\",\"text\":\"hello\"},{\"id\":\"b\",\"text\":\"hello\",\"valid\":false}]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(score.statusCode()).as(score.body()).isEqualTo(200);
            assertThat(score.body()).contains("\"reward\":0.0");   // soft gate floor for the invalid item
        } finally {
            p.destroy();
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
    }
}
