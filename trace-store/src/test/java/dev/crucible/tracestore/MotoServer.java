package dev.crucible.tracestore;

import dev.crucible.tracestore.common.S3Settings;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A real S3-compatible server for the S3 backend's tests: moto's server mode (PyPI {@code moto[server]}), its own
 * process on a free port, speaking S3's HTTP API (signatures, ListObjectsV2, ranges, DeleteObjects). Found at
 * {@code $CRUCIBLE_MOTO_SERVER}, else in the venv {@code trace-store/scripts/install-moto.sh} makes under
 * {@code $CRUCIBLE_CACHE} ({@code .ci/run} runs it), else {@code moto_server} on the PATH; the tests skip, saying so,
 * when there is none. Its state lives in its memory: stopping it loses every bucket.
 */
final class MotoServer implements AutoCloseable {
    static final String MISSING = "moto is missing (an S3-compatible server for the S3 backend's tests): run"
            + " `bash trace-store/scripts/install-moto.sh` (a venv under $CRUCIBLE_CACHE) or set CRUCIBLE_MOTO_SERVER to a moto_server";

    final int port;
    private final Process process;

    private MotoServer(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    static Path find() {
        String env = System.getenv("CRUCIBLE_MOTO_SERVER");
        if (env != null && !env.isBlank()) return Files.isExecutable(Path.of(env)) ? Path.of(env) : null;
        String cache = System.getenv().getOrDefault("CRUCIBLE_CACHE", System.getProperty("user.home") + "/.cache/crucible");
        Path venv = Path.of(cache, "moto-python", "bin", "moto_server");
        if (Files.isExecutable(venv)) return venv;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "moto_server"))) return Path.of(dir, "moto_server");
        }
        return null;
    }

    /** Starts one (the test is skipped when moto is missing) and waits until it answers. */
    static MotoServer start() throws Exception {
        Path bin = find();
        Assumptions.assumeTrue(bin != null, MISSING);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = Files.createTempFile("moto-", ".log");
        Process p = new ProcessBuilder(List.of(bin.toString(), "-H", "127.0.0.1", "-p", String.valueOf(port)))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        MotoServer m = new MotoServer(port, p);
        HttpClient http = HttpClient.newHttpClient();
        long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            if (!p.isAlive()) throw new IllegalStateException("moto_server exited (" + p.exitValue() + "): " + Files.readString(log));
            try {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(m.endpoint()).timeout(Duration.ofSeconds(2)).GET().build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) return m;
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > until) {
                m.close();
                throw new IllegalStateException("moto_server did not answer on :" + port + " within 90 s: " + Files.readString(log));
            }
            Thread.sleep(200);
        }
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The store's settings for {@code bucket} here (created now), path-style, moto's any-credentials. */
    S3Settings bucket(String bucket) {
        try (S3Client c = client()) {
            c.createBucket(b -> b.bucket(bucket));
        }
        return S3Settings.of(endpoint().toString(), bucket, "us-east-1", "true", null, "test-key", "test-secret");
    }

    /** A plain SDK client of this server: what a test reads the bucket with, apart from the store's own code. */
    S3Client client() {
        return S3Client.builder().endpointOverride(endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test-key", "test-secret")))
                .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder()).build();
    }

    /** The keys under {@code prefix}, in order. */
    List<String> keys(String bucket, String prefix) {
        try (S3Client c = client()) {
            return c.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream().map(S3Object::key).toList();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    }
}
