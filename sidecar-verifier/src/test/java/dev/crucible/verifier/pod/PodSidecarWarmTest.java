package dev.crucible.verifier.pod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.support.Fixtures;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar of a warm-pool pod (issue 39): started with no Rollout (no identity, deadline or limits in its
 * variables, only {@code CRUCIBLE_WARM_POOL}), it serves nothing until the claim file holds a claim, then runs
 * the attempt with the claim's deadline and limits. The claim file is switched the way the kubelet updates a
 * downward-API volume (a new timestamped folder, then the {@code ..data} link renamed over), real pytest, real HTTP.
 */
class PodSidecarWarmTest {

    @TempDir
    Path dir;
    final String token = dev.crucible.verifier.api.ApiToken.generate().value();

    /** A pool pod's sidecar variables: what WarmPodBuilder leaves of a cold interactive pod's, plus the claim file. */
    private Map<String, String> poolPodEnv() throws Exception {
        Path example = Fixtures.example();
        Path workspace = dir.resolve("workspace");
        Fixtures.copyTree(example.resolve("workspace"), workspace);
        Fixtures.copyTree(example.resolve("workspace"), dir.resolve("pristine"));
        Files.createDirectories(dir.resolve("run"));
        Path secret = Files.createDirectories(dir.resolve("secret")).resolve("token");
        Files.writeString(secret, token + "\n");
        Map<String, String> env = new HashMap<>();
        env.put("CRUCIBLE_ENVIRONMENT_FILE", example.resolve("environment.yaml").toString());
        env.put("CRUCIBLE_WORKSPACE", workspace.toString());
        env.put("CRUCIBLE_PRISTINE", dir.resolve("pristine").toString());
        env.put("CRUCIBLE_RUN_DIR", dir.resolve("run").toString());
        env.put("CRUCIBLE_RESULT_FILE", dir.resolve("termination-log").toString());
        env.put("CRUCIBLE_PORT", Integer.toString(freePort()));
        env.put("CRUCIBLE_MODE", "interactive");
        env.put("CRUCIBLE_API_TOKEN_FILE", secret.toString());
        env.put("CRUCIBLE_WARM_POOL", projected("").toString());
        return env;
    }

    /** Writes the claim annotation's value as the kubelet does: a new data folder, then ..data swapped to it. */
    private Path projected(String claim) throws Exception {
        Path volume = Files.createDirectories(dir.resolve("config"));
        Path data = Files.createDirectories(volume.resolve("..ts-" + System.nanoTime()));
        Files.writeString(data.resolve("claim.json"), claim);
        Path link = volume.resolve("..data_tmp");
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, data.getFileName());
        Files.move(link, volume.resolve("..data"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        Path file = volume.resolve("claim.json");
        if (!Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(file, Path.of("..data/claim.json"));
        }
        return file;
    }

    private static String claim(String rollout, long maxSeconds, Instant deadline) {
        return "{\"rollout\":\"" + rollout + "\",\"namespace\":\"team-a\",\"mode\":\"interactive\",\"maxDurationSeconds\":" + maxSeconds
                + ",\"deadlineAt\":\"" + deadline + "\",\"maxTurns\":5,\"claimedAt\":\"" + Instant.now() + "\"}";
    }

    private static CompletableFuture<String> start(PodSettings settings) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new PodSidecar(settings, Duration.ofMillis(100)).run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aPoolPodServesNothingUntilClaimedThenRunsTheClaimedAttemptToRewardOne() throws Exception {
        PodSettings settings = PodSettings.fromEnvironment(poolPodEnv());
        assertThat(settings.warm()).isTrue();
        CompletableFuture<String> result = start(settings);
        // unclaimed: no API to reset against, so no episode and no monitor baseline before the claim
        Thread.sleep(1500);
        assertThat(listening(settings.port())).as("the API of an unclaimed pool pod").isFalse();
        assertThat(result).isNotDone();

        projected(claim("warm-honest", 120, Instant.now().plusSeconds(120)));
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + settings.port();
        String auth = "Bearer " + token;
        assertThat(post(http, base + "/v1/reset", "{}", auth)).isEqualTo(200);
        String fix = "{\"tool\":\"bash\",\"args\":{\"command\":\"sh " + Fixtures.example().resolve("agents/honest.sh") + "\"}}";
        assertThat(post(http, base + "/v1/step", fix, auth)).isEqualTo(200);
        assertThat(post(http, base + "/v1/verify", "{}", auth)).isEqualTo(200);
        JsonNode r = new ObjectMapper().readTree(result.get(120, TimeUnit.SECONDS));
        assertThat(r.path("phase").asText()).isEqualTo("Succeeded");
        assertThat(r.path("reward").asDouble()).isEqualTo(1.0);
        assertThat(r.path("turns").asInt()).isEqualTo(1);
    }

    @Test
    void aHackerInAClaimedPoolPodEndsHacked() throws Exception {
        PodSettings settings = PodSettings.fromEnvironment(poolPodEnv());
        CompletableFuture<String> result = start(settings);
        Thread.sleep(300);
        projected(claim("warm-hacker", 120, Instant.now().plusSeconds(120)));
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + settings.port();
        String auth = "Bearer " + token;
        assertThat(post(http, base + "/v1/reset", "{}", auth)).isEqualTo(200);
        String hack = "{\"tool\":\"bash\",\"args\":{\"command\":\"sh " + Fixtures.example().resolve("agents/hacker.sh") + "\"}}";
        assertThat(post(http, base + "/v1/step", hack, auth)).isEqualTo(200);
        assertThat(post(http, base + "/v1/verify", "{}", auth)).isEqualTo(200);
        JsonNode r = new ObjectMapper().readTree(result.get(120, TimeUnit.SECONDS));
        assertThat(r.path("phase").asText()).isEqualTo("Hacked");
        assertThat(r.path("reward").asDouble()).isEqualTo(0.0);
        assertThat(r.path("hackFindings").toString()).contains("conftest.py");
    }

    /**
     * Setup runs in the pool pod before any claim, once (issue 39): setup.done (the startup probe's file) appears
     * only after it, the API still serves nothing, and the claimed attempt's reset does not run it again. A setup
     * that failed ahead runs again at the reset, which reports it as a cold pod's does.
     */
    @Test
    void setupRunsAheadOfTheClaimOnceAndAFailedOneRunsAgainAtReset() throws Exception {
        Path runs = dir.resolve("setup-runs");
        for (boolean fails : new boolean[] {false, true}) {
            Files.deleteIfExists(runs);
            Map<String, String> env = poolPodEnv();
            Path manifest = dir.resolve("environment-" + fails + ".yaml");
            String yaml = Files.readString(Fixtures.example().resolve("environment.yaml"))
                    .replace("python3 -m pip --version >/dev/null 2>&1 || true", "sleep 1; echo run >> " + runs + (fails ? "; exit 3" : ""))
                    .replace("path: ./workspace", "path: " + Fixtures.example().resolve("workspace"));
            Files.writeString(manifest, yaml);
            env.put("CRUCIBLE_ENVIRONMENT_FILE", manifest.toString());
            Path done = dir.resolve("run").resolve(dev.crucible.contract.RunFolder.SETUP_DONE);
            Files.deleteIfExists(done);
            PodSettings settings = PodSettings.fromEnvironment(env);
            CompletableFuture<String> result = start(settings);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!Files.exists(done) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(done).as("the startup probe's file").exists();
            assertThat(Files.readAllLines(runs)).as("setup ran before the claim, once").hasSize(1);
            assertThat(listening(settings.port())).as("still unclaimed: no API").isFalse();

            projected(claim("warm-setup", 120, Instant.now().plusSeconds(120)));
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + settings.port();
            String auth = "Bearer " + token;
            assertThat(post(http, base + "/v1/reset", "{}", auth)).isEqualTo(200);
            assertThat(Files.readAllLines(runs)).as(fails ? "a failed setup runs again at reset" : "the reset does not run setup again")
                    .hasSize(fails ? 2 : 1);
            String fix = "{\"tool\":\"bash\",\"args\":{\"command\":\"sh " + Fixtures.example().resolve("agents/honest.sh") + "\"}}";
            assertThat(post(http, base + "/v1/step", fix, auth)).isEqualTo(200);
            assertThat(post(http, base + "/v1/verify", "{}", auth)).isEqualTo(200);
            JsonNode r = new ObjectMapper().readTree(result.get(120, TimeUnit.SECONDS));
            assertThat(r.path("phase").asText()).isEqualTo("Succeeded");
            assertThat(r.path("reward").asDouble()).isEqualTo(1.0);
        }
    }

    /** A cold interactive pod runs the same setup at the trainer's first reset, once (its peer in the real-node figure). */
    @Test
    void aColdInteractivePodRunsSetupAtItsFirstResetOnce() throws Exception {
        Path runs = dir.resolve("setup-runs");
        Map<String, String> env = poolPodEnv();
        env.remove("CRUCIBLE_WARM_POOL");
        env.put("CRUCIBLE_ROLLOUT", "cold-setup");
        env.put("CRUCIBLE_MAX_DURATION_SECONDS", "120");
        Path manifest = dir.resolve("environment-cold.yaml");
        Files.writeString(manifest, Files.readString(Fixtures.example().resolve("environment.yaml"))
                .replace("python3 -m pip --version >/dev/null 2>&1 || true", "echo run >> " + runs)
                .replace("path: ./workspace", "path: " + Fixtures.example().resolve("workspace")));
        env.put("CRUCIBLE_ENVIRONMENT_FILE", manifest.toString());
        PodSettings settings = PodSettings.fromEnvironment(env);
        CompletableFuture<String> result = start(settings);
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + settings.port();
        String auth = "Bearer " + token;
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!listening(settings.port()) && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        Thread.sleep(500);
        assertThat(runs).as("nothing before the reset").doesNotExist();
        assertThat(post(http, base + "/v1/reset", "{}", auth)).isEqualTo(200);
        assertThat(Files.readAllLines(runs)).hasSize(1);
        assertThat(post(http, base + "/v1/reset", "{}", auth)).isEqualTo(200);
        assertThat(Files.readAllLines(runs)).as("a second reset restores the set-up copy").hasSize(1);
        assertThat(post(http, base + "/v1/verify", "{}", auth)).isEqualTo(200);
        result.get(120, TimeUnit.SECONDS);
    }

    /** The deadline is the claim's (the pool pod's variables have none): a claim due in 3 s times out in about that. */
    @Test
    void theClaimsDeadlineAndLimitsReplaceThePoolPodsDefaults() throws Exception {
        PodSettings settings = PodSettings.fromEnvironment(poolPodEnv());
        assertThat(settings.maxDurationSeconds()).as("a pool pod's own default").isGreaterThan(60);
        CompletableFuture<String> result = start(settings);
        Thread.sleep(300);
        long t0 = System.nanoTime();
        projected(claim("warm-late", 3600, Instant.now().plusSeconds(3)));
        JsonNode r = new ObjectMapper().readTree(result.get(90, TimeUnit.SECONDS));
        assertThat(r.path("phase").asText()).isEqualTo("TimedOut");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(60));

        WarmClaim c = WarmClaim.parse(Path.of("claim.json"), claim("r", 600, Instant.parse("2026-11-29T21:00:00Z")));
        PodSettings claimed = c.applyTo(settings);
        assertThat(claimed.maxTurns()).isEqualTo(5);
        assertThat(claimed.maxDurationSeconds()).isEqualTo(600);
        assertThat(claimed.deadlineAt()).isEqualTo(Instant.parse("2026-11-29T21:00:00Z"));
        assertThat(claimed.warm()).as("a claimed pod waits for no second claim").isFalse();
    }

    @Test
    void aMalformedClaimIsAnErrorNamingTheFileAndTheField() {
        Path f = Path.of("/etc/crucible/claim.json");
        assertThatThrownBy(() -> WarmClaim.parse(f, "{not json")).hasMessageStartingWith(f + ": not a JSON claim");
        assertThatThrownBy(() -> WarmClaim.parse(f, "[1]")).hasMessage(f + ": not a JSON object");
        String ok = claim("r", 600, Instant.now());
        assertThatThrownBy(() -> WarmClaim.parse(f, ok.replace("\"rollout\":\"r\"", "\"rollout\":\"\"")))
                .hasMessage(f + ": rollout: required (a non-empty string)");
        assertThatThrownBy(() -> WarmClaim.parse(f, ok.replace("\"maxDurationSeconds\":600", "\"maxDurationSeconds\":-1")))
                .hasMessageStartingWith(f + ": maxDurationSeconds: expected a non-negative whole number");
        assertThatThrownBy(() -> WarmClaim.parse(f, ok.replaceFirst("\"deadlineAt\":\"[^\"]+\"", "\"deadlineAt\":\"soon\"")))
                .hasMessage(f + ": deadlineAt: expected an RFC 3339 time, got 'soon'");
        assertThatThrownBy(() -> WarmClaim.parse(f, ok.replace("interactive", "batch")))
                .hasMessage(f + ": mode: expected embedded or interactive, got 'batch'");
    }

    private static boolean listening(int port) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (ConnectException e) {
            return false;
        }
    }

    private static int post(HttpClient http, String url, String body, String authorization) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json").header("Authorization", authorization)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        for (int attempt = 0; ; attempt++) {
            try {
                return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (ConnectException e) {
                if (attempt > 100) {
                    throw e;
                }
                Thread.sleep(100); // the claim is not seen yet, or the API is starting
            }
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
