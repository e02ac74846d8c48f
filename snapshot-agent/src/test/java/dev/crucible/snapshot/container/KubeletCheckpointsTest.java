package dev.crucible.snapshot.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.snapshot.container.KubeletCheckpoints.CheckpointRefused;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubelet checkpoint client against a real HTTPS server standing in for the kubelet: it posts to
 * {@code /checkpoint/{ns}/{pod}/{container}?timeout=N} with the bearer token read afresh from its file on
 * every call (projected tokens rotate), path segments encoded, and returns the archive path the kubelet
 * names. Refusals carry the kubelet's status and say what to fix (403: the nodes/checkpoint permission;
 * 404: the ContainerCheckpoint feature gate; 500: the runtime's own text), and a server whose certificate
 * is not the pinned one is never talked to. Certificates are self-signed by openssl, as a kubelet's are
 * (Vert.x's SelfSignedCertificate needs BouncyCastle on Java 17).
 */
class KubeletCheckpointsTest {

    record Call(String method, String uri, String timeout, String authorization) {}

    /** A self-signed certificate and its key, PEM files. */
    record Cert(Path cert, Path key) {}

    @TempDir
    Path tmp;
    Vertx vertx;
    final List<Call> calls = new CopyOnWriteArrayList<>();
    final AtomicReference<Integer> status = new AtomicReference<>(200);
    final AtomicReference<String> body = new AtomicReference<>("{\"items\":[\"/var/lib/kubelet/checkpoints/checkpoint-x.tar\"]}");
    Cert cert;
    int port;
    Path token;

    @BeforeEach
    void startKubelet() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")) || Files.isExecutable(Path.of("/bin/openssl")), "needs openssl");
        vertx = Vertx.vertx();
        cert = selfSigned("kubelet");
        port = listen(cert);
        token = tmp.resolve("token");
        Files.writeString(token, "token-one\n");
    }

    @AfterEach
    void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void postsToTheKubeletWithTheTokenAndReturnsTheArchivePath() {
        try (KubeletCheckpoints k = client(cert)) {
            Path archive = k.checkpoint("team-a", "../../pods/x", "c?timeout=0", Duration.ofSeconds(42));

            assertThat(archive).isEqualTo(Path.of("/var/lib/kubelet/checkpoints/checkpoint-x.tar"));
            assertThat(calls).hasSize(1);
            Call c = calls.get(0);
            assertThat(c.method()).isEqualTo("POST");
            assertThat(c.uri()).as("each name is one encoded path segment: no traversal, no injected query")
                    .isEqualTo("/checkpoint/team-a/..%2F..%2Fpods%2Fx/c%3Ftimeout%3D0?timeout=42");
            assertThat(c.timeout()).isEqualTo("42");
            assertThat(c.authorization()).isEqualTo("Bearer token-one");
        }
    }

    @Test
    void readsTheTokenFileAgainOnEveryCall() throws Exception {
        try (KubeletCheckpoints k = client(cert)) {
            k.checkpoint("ns", "pod", "c", Duration.ofSeconds(5));
            Files.writeString(token, "token-two\n");
            k.checkpoint("ns", "pod", "c", Duration.ofMillis(300));
        }
        assertThat(calls).extracting(Call::authorization).containsExactly("Bearer token-one", "Bearer token-two");
        assertThat(calls.get(1).timeout()).as("a sub-second timeout is passed on as 1 s, never 0 (no limit)").isEqualTo("1");
    }

    @Test
    void aForbiddenCallNamesThePermission() {
        assertRefused(403, "{\"kind\":\"Status\",\"reason\":\"Forbidden\"}", "nodes/checkpoint", "Forbidden");
    }

    @Test
    void notFoundNamesTheFeatureGate() {
        assertRefused(404, "404 page not found", "ContainerCheckpoint", "404 page not found");
    }

    @Test
    void aRuntimeFailureCarriesTheRuntimesText() {
        assertRefused(500, "checkpoint/restore support not available in runtime handler runc", "ns/pod/c (HTTP 500",
                "checkpoint/restore support not available in runtime handler runc");
    }

    @Test
    void anAnswerWithoutAnArchiveIsRefused() {
        assertRefused(200, "{\"items\":[]}", "named no checkpoint archive", "{\"items\":[]}");
    }

    @Test
    void aServerWithAnotherCertificateIsNeverTrusted() throws Exception {
        Cert other = selfSigned("other");
        try (KubeletCheckpoints k = client(other)) {
            assertThatThrownBy(() -> k.checkpoint("ns", "pod", "c", Duration.ofSeconds(5)))
                    .isInstanceOfSatisfying(CheckpointRefused.class, e -> assertThat(e.status()).isZero())
                    .hasMessageContaining("cannot reach the kubelet");
        }
        assertThat(calls).as("no request reached the untrusted server").isEmpty();
    }

    private void assertRefused(int code, String answer, String named, String carried) {
        status.set(code);
        body.set(answer);
        try (KubeletCheckpoints k = client(cert)) {
            assertThatThrownBy(() -> k.checkpoint("ns", "pod", "c", Duration.ofSeconds(5)))
                    .isInstanceOfSatisfying(CheckpointRefused.class, e -> assertThat(e.status()).isEqualTo(code))
                    .hasMessageContaining(named).hasMessageContaining(carried);
        }
        assertThat(calls).hasSize(1);
    }

    /** A client pinned to {@code trusted}'s certificate, talking to the server of {@link #cert}. */
    private KubeletCheckpoints client(Cert trusted) {
        return new KubeletCheckpoints(new KubeletCheckpoints.Access("127.0.0.1", port, trusted.cert(), token, null, null));
    }

    private int listen(Cert serverCert) throws Exception {
        HttpServer server = vertx.createHttpServer(new HttpServerOptions().setSsl(true)
                        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(serverCert.cert().toString()).setKeyPath(serverCert.key().toString())))
                .requestHandler(req -> req.body().onComplete(b -> {
                    calls.add(new Call(req.method().name(), req.uri(), req.getParam("timeout"), req.getHeader("Authorization")));
                    req.response().setStatusCode(status.get()).end(body.get());
                }));
        return server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
    }

    private Cert selfSigned(String name) throws Exception {
        Cert c = new Cert(tmp.resolve(name + ".crt"), tmp.resolve(name + ".key"));
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", c.key().toString(), "-out", c.cert().toString(), "-subj", "/CN=" + name, "-days", "2",
                "-addext", "subjectAltName=IP:127.0.0.1").redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as("openssl: %s", said).isZero();
        return c;
    }
}
