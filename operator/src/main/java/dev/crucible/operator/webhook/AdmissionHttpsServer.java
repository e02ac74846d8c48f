package dev.crucible.operator.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.controllers.admission.AdmissionReviewer;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.SSLOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /validate} over HTTPS with the certificate in {@link CertificateFiles}, on a Vert.x
 * HTTP server of its own (Quarkus's Vert.x instance in the operator, a plain one in tests). Quarkus's
 * main server takes its certificate from the TLS registry, which loads and checks the files while
 * Quarkus starts, before this operator has issued anything; a listener of our own starts after the
 * bootstrap instead, and {@link #reload()} swaps a rotated certificate in with
 * {@code updateSSLOptions}: new handshakes get it, open connections finish on the old one, no restart.
 * Port 8080 stays plain HTTP for metrics and probes.
 */
public final class AdmissionHttpsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AdmissionHttpsServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** An AdmissionReview carries the object and, on UPDATE, the old object: each at most ~1.5 MiB in etcd. */
    static final long MAX_BODY_BYTES = 8L * 1024 * 1024;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Vertx vertx;
    private final AdmissionReviewer reviewer;
    private final String host;
    private final int port;
    private final CertificateFiles files;
    private final AtomicLong reviews = new AtomicLong();
    private HttpServer server;

    public AdmissionHttpsServer(Vertx vertx, AdmissionReviewer reviewer, String host, int port, CertificateFiles files) {
        this.vertx = vertx;
        this.reviewer = reviewer;
        this.host = host;
        this.port = port;
        this.files = files;
    }

    /** Starts listening (blocking until it does); returns the port, useful when 0 asked for any free one. */
    public synchronized int start() {
        HttpServerOptions options = new HttpServerOptions().setSsl(true).setHost(host).setPort(port)
                .setKeyCertOptions(keyCert())
                .setMaxHeaderSize(16 * 1024);
        try {
            server = vertx.createHttpServer(options).requestHandler(this::handle).listen()
                    .toCompletionStage().toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot serve the admission webhook on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        LOG.info("Admission webhook serving HTTPS on {}:{} with {}", host, server.actualPort(), files.certificate());
        return server.actualPort();
    }

    /** Reads the certificate files again; new TLS handshakes use them. */
    public synchronized void reload() {
        if (server == null) {
            return;
        }
        try {
            server.updateSSLOptions(new SSLOptions().setKeyCertOptions(keyCert()))
                    .toCompletionStage().toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot reload the webhook certificate: " + e.getMessage(), e);
        }
        LOG.info("Admission webhook now serves the certificate in {}", files.certificate());
    }

    /** The port listened on (the actual one when 0 was asked for); -1 before {@link #start()}. */
    public synchronized int port() {
        return server == null ? -1 : server.actualPort();
    }

    public boolean serving() {
        return server != null;
    }

    /** AdmissionReviews answered so far (200 responses, allowed or denied). */
    public long reviews() {
        return reviews.get();
    }

    @Override
    public synchronized void close() {
        if (server != null) {
            server.close().toCompletionStage().toCompletableFuture().orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
            server = null;
        }
    }

    /** Values, not paths: Vert.x compares options for equality, and a path that now holds a new certificate compares equal. */
    private PemKeyCertOptions keyCert() {
        try {
            return new PemKeyCertOptions()
                    .setCertValue(Buffer.buffer(Files.readAllBytes(files.certificate())))
                    .setKeyValue(Buffer.buffer(Files.readAllBytes(files.key())));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the webhook certificate from " + files.directory() + ": " + e.getMessage(), e);
        }
    }

    private void handle(HttpServerRequest request) {
        if (!"/validate".equals(request.path())) {
            request.response().setStatusCode(404).end();
            return;
        }
        if (request.method() != HttpMethod.POST) {
            request.response().setStatusCode(405).putHeader("Allow", "POST").end();
            return;
        }
        String length = request.getHeader("Content-Length");
        if (length != null && length.matches("\\d{1,19}") && Long.parseLong(length) > MAX_BODY_BYTES) {
            request.response().setStatusCode(413).end();
            return;
        }
        request.body().onSuccess(body -> {
            if (body.length() > MAX_BODY_BYTES) {
                request.response().setStatusCode(413).end();
                return;
            }
            // Schema, CEL and semantic checks take milliseconds of CPU: off the event loop.
            vertx.executeBlocking(() -> JSON.writeValueAsBytes(reviewer.review(parse(body))), false)
                    .onSuccess(out -> {
                        reviews.incrementAndGet();
                        request.response().putHeader("Content-Type", "application/json").end(Buffer.buffer(out));
                    })
                    .onFailure(e -> {
                        LOG.error("Admission review failed", e);
                        request.response().setStatusCode(500).end();
                    });
        }).onFailure(e -> request.response().setStatusCode(400).end());
    }

    /** Unparseable JSON becomes an empty review, which the reviewer answers with a 400-coded refusal. */
    private static JsonNode parse(Buffer body) {
        try {
            return JSON.readTree(body.getBytes());
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }
}
