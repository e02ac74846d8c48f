package dev.crucible.snapshot.container;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The kubelet's checkpoint API ({@code POST /checkpoint/{namespace}/{pod}/{container}}, beta and on by
 * default since Kubernetes 1.30): the kubelet has the container runtime checkpoint a running container
 * with CRIU, leaving it running, and answers with the archive's path on the node.
 *
 * <p>The node's agent calls its own kubelet, authenticated by a bearer token (its service account's:
 * the kubelet's webhook authorizer then asks for {@code create} on {@code nodes/checkpoint}, nothing
 * broader) or a client certificate. The kubelet's serving certificate is usually self-signed: it is
 * trusted by pinning the certificate file (the agent reads it from the node), so host-name checks add
 * nothing and are off.
 */
public final class KubeletCheckpoints implements AutoCloseable {
    /** How the agent reaches and authenticates to its kubelet. */
    public record Access(String host, int port, Path trustFile, Path tokenFile, Path clientCert, Path clientKey) {
        public Access {
            if ((clientCert == null) != (clientKey == null)) throw new IllegalArgumentException("kubelet client certificate and key go together");
            if (tokenFile == null && clientCert == null) throw new IllegalArgumentException("kubelet access needs a token file or a client certificate");
        }
    }

    /** Refused or failed by the kubelet or the runtime; the message carries their answer. */
    public static final class CheckpointRefused extends RuntimeException {
        private final int status;

        public CheckpointRefused(int status, String message) {
            super(message);
            this.status = status;
        }

        /** The kubelet's HTTP status (404: the API is off or the container unknown; 500: the runtime failed). */
        public int status() { return status; }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private final Vertx vertx;
    private final HttpClient http;
    private final Access access;

    public KubeletCheckpoints(Access access) {
        this.access = access;
        this.vertx = Vertx.vertx();
        HttpClientOptions o = new HttpClientOptions().setSsl(true).setVerifyHost(false)
                .setTrustOptions(new PemTrustOptions().addCertPath(access.trustFile().toString()))
                .setConnectTimeout(10_000);
        if (access.clientCert() != null) {
            o.setKeyCertOptions(new PemKeyCertOptions().setCertPath(access.clientCert().toString()).setKeyPath(access.clientKey().toString()));
        }
        this.http = vertx.createHttpClient(o);
    }

    /**
     * Checkpoints {@code container} of pod {@code namespace/pod}; returns the archive's path on the node.
     * {@code timeout} bounds the runtime's work (the kubelet passes it on) and this call.
     */
    public Path checkpoint(String namespace, String pod, String container, Duration timeout) {
        String path = "/checkpoint/" + enc(namespace) + "/" + enc(pod) + "/" + enc(container) + "?timeout=" + Math.max(1, timeout.toSeconds());
        RequestOptions req = new RequestOptions().setMethod(HttpMethod.POST).setHost(access.host()).setPort(access.port()).setURI(path)
                .setTimeout(timeout.toMillis() + 10_000);
        if (access.tokenFile() != null) req.putHeader("Authorization", "Bearer " + token()); // re-read: projected tokens rotate
        try {
            Reply r = http.request(req).compose(q -> q.send().compose(resp -> resp.body().map(b -> new Reply(resp.statusCode(), b))))
                    .toCompletionStage().toCompletableFuture().get(timeout.toMillis() + 15_000, TimeUnit.MILLISECONDS);
            String body = r.body().toString(StandardCharsets.UTF_8).strip();
            if (r.status() != 200) {
                throw new CheckpointRefused(r.status(), "the kubelet refused the checkpoint of " + namespace + "/" + pod + "/" + container
                        + " (HTTP " + r.status() + (r.status() == 404 ? ": the checkpoint API is off (feature gate ContainerCheckpoint) or the container is unknown" : "")
                        + (r.status() == 401 || r.status() == 403 ? ": the agent may not create nodes/checkpoint" : "")
                        + "): " + clip(body));
            }
            JsonNode items = JSON.readTree(body).path("items");
            if (!items.isArray() || items.isEmpty()) throw new CheckpointRefused(r.status(), "the kubelet named no checkpoint archive: " + clip(body));
            return Path.of(items.get(0).asText());
        } catch (ExecutionException e) {
            throw new CheckpointRefused(0, "cannot reach the kubelet at " + access.host() + ":" + access.port() + ": " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new CheckpointRefused(0, "the kubelet's checkpoint of " + namespace + "/" + pod + "/" + container + " took over " + timeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CheckpointRefused(0, "interrupted");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Reply(int status, Buffer body) {}

    private String token() {
        try {
            return Files.readString(access.tokenFile()).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the kubelet token file " + access.tokenFile(), e);
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20"); // a path segment, not a form
    }

    private static String clip(String s) {
        return s.length() > 400 ? s.substring(0, 400) + "…" : s;
    }

    @Override
    public void close() {
        vertx.close();
    }
}
