package dev.crucible.operator.webhook;

import static dev.crucible.operator.webhook.SelfSignedIssuerTest.NAMES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.controllers.admission.AdmissionReviewer;
import io.vertx.core.Vertx;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The webhook over real HTTPS on 127.0.0.1 with the issued certificate, and a rotation without restart. */
class AdmissionHttpsServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Vertx vertx;
    private static AdmissionReviewer reviewer;

    @TempDir
    Path dir;

    @BeforeAll
    static void startVertx() {
        vertx = Vertx.vertx();
        reviewer = new AdmissionReviewer(new ManifestValidator());
    }

    @AfterAll
    static void stopVertx() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void servesAdmissionReviewsOverTlsTrustedByTheCaAndReloadsARotatedCertificate() throws Exception {
        Instant now = Instant.now();
        CertificateFiles files = new CertificateFiles(dir);
        WebhookCertificate first = SelfSignedIssuer.issueAll(NAMES, now, Duration.ofDays(3650), Duration.ofDays(365), List.of());
        files.write(first);
        try (AdmissionHttpsServer server = new AdmissionHttpsServer(vertx, reviewer, "127.0.0.1", 0, files)) {
            int port = server.start();
            HttpClient client = HttpClient.newBuilder().sslContext(trusting(first.signingCa())).build();

            HttpResponse<String> denied = post(client, port, """
                    {"apiVersion":"crucible.dev/v1alpha1","kind":"RLEnvironment","metadata":{"name":"overlap"},
                     "spec":{"image":"python:3.12","task":{"prompt":"fix it"},
                             "verifier":{"type":"test-suite","command":"pytest","failToPass":["t::a"],"passToPass":["t::a"]}}}""");
            assertThat(denied.statusCode()).isEqualTo(200);
            JsonNode response = JSON.readTree(denied.body()).path("response");
            assertThat(response.path("uid").asText()).isEqualTo("0f1e2d3c");
            assertThat(response.path("allowed").asBoolean()).isFalse();
            assertThat(response.path("status").path("message").asText()).contains("spec.verifier.passToPass[0]");
            assertThat(server.reviews()).isEqualTo(1);
            assertThat(servedSerial(port, first.signingCa())).isEqualTo(first.servingCertificate().getSerialNumber());

            // Rotation: new serving certificate from the same CA, files replaced, reload; new handshakes see it.
            WebhookCertificate second = SelfSignedIssuer.issueServing(first, NAMES, now.plusSeconds(1), Duration.ofDays(365));
            assertThat(files.write(second)).isTrue();
            assertThat(files.write(second)).as("writing the same certificate again changes nothing").isFalse();
            server.reload();
            assertThat(servedSerial(port, first.signingCa())).isEqualTo(second.servingCertificate().getSerialNumber());
            assertThat(post(HttpClient.newBuilder().sslContext(trusting(first.signingCa())).build(), port, "{}").statusCode()).isEqualTo(200);

            // A client that trusts another CA refuses the handshake: the CA really is what makes it trusted.
            WebhookCertificate stranger = SelfSignedIssuer.issueAll(NAMES, now, Duration.ofDays(3650), Duration.ofDays(365), List.of());
            assertThatThrownBy(() -> post(HttpClient.newBuilder().sslContext(trusting(stranger.signingCa())).build(), port, "{}"))
                    .hasRootCauseInstanceOf(java.security.cert.CertPathValidatorException.class)
                    .isInstanceOf(SSLHandshakeException.class);

            HttpResponse<String> notFound = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/other")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(notFound.statusCode()).isEqualTo(404);
        }
    }

    private static HttpResponse<String> post(HttpClient client, int port, String object) throws Exception {
        String review = """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
                 "request":{"uid":"0f1e2d3c","operation":"CREATE","namespace":"team-a","object":%s}}""".formatted(object);
        return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/validate"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(review)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static BigInteger servedSerial(int port, X509Certificate ca) throws Exception {
        try (SSLSocket socket = (SSLSocket) trusting(ca).getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    static SSLContext trusting(X509Certificate ca) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }
}
