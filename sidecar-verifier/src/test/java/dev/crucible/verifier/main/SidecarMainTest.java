package dev.crucible.verifier.main;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sidecar's main class as a real process: bad input exits 2 naming the field; good input serves. */
class SidecarMainTest {
    @TempDir
    Path dir;

    static Process start(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), SidecarMain.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    @Test
    void badInputExitsTwo() throws Exception {
        Process p = start("--workspace", dir.toString());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(new String(p.getInputStream().readAllBytes())).contains("--env: required");
        Fixtures.write(dir.resolve("bad.yaml"), "kind: RLEnvironment\nspec:\n  verifier: {command: x, rewardMode: most}\n");
        Process q = start("--env", dir.resolve("bad.yaml").toString(), "--workspace", dir.toString());
        assertThat(q.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(q.exitValue()).isEqualTo(2);
        assertThat(new String(q.getInputStream().readAllBytes())).contains("bad.yaml").contains("spec.verifier.rewardMode");
    }

    @Test
    void servesTheExample() throws Exception {
        Path manifest = Fixtures.copyExample(dir);
        Process p = start("--env", manifest.toString(), "--workspace", dir.resolve("workspace").toString(), "--port", "0",
                "--host", "127.0.0.1", "--state-dir", dir.resolve("state").toString(), "--token-file", dir.resolve("token").toString());
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()));
            String line;
            int port = -1;
            while ((line = out.readLine()) != null) {
                if (line.contains(" on port ")) {
                    port = Integer.parseInt(line.substring(line.lastIndexOf(' ') + 1).strip());
                    break;
                }
            }
            assertThat(port).isPositive();
            assertThat(java.nio.file.Files.getPosixFilePermissions(dir.resolve("token")))
                    .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            String auth = "Bearer " + java.nio.file.Files.readString(dir.resolve("token")).strip();
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/reset"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(401);
            HttpResponse<String> reset = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/reset"))
                    .header("Authorization", auth).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(reset.statusCode()).isEqualTo(200);
            HttpResponse<String> verify = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/verify"))
                    .header("Authorization", auth).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(verify.body()).contains("\"reward\":0.0").contains("\"verdict\":\"fail\"");
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
