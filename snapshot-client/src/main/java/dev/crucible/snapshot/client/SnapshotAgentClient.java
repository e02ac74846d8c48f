package dev.crucible.snapshot.client;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.DumpResult;
import dev.crucible.snapshot.client.api.PrepareResult;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.ManifestJson;
import dev.crucible.snapshot.client.tls.AgentClientTls;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the operator uses to drive one node's agent (the RolloutSnapshot reconciler holds one per
 * node). Plain JDK HTTP client and the agent's own types, so the two ends cannot drift.
 */
public final class SnapshotAgentClient {

    private final URI base;
    private final String token;
    private final Duration timeout;
    private final HttpClient http;

    /** Plaintext: for an agent on this machine's loopback only (local use, tests). */
    public SnapshotAgentClient(URI base, String token, Duration timeout) {
        this(base, token, timeout, null);
    }

    /** {@code tls} non-null: https with the operator's client certificate, trusting only the agent CA. */
    public SnapshotAgentClient(URI base, String token, Duration timeout, AgentClientTls tls) {
        this.base = base;
        this.token = token;
        this.timeout = timeout;
        if (tls == null && !"http".equals(base.getScheme())) {
            throw new IllegalArgumentException("agent URI " + base + ": https needs the agent TLS settings");
        }
        if (tls != null && !"https".equals(base.getScheme())) {
            throw new IllegalArgumentException("agent URI " + base + ": with TLS settings the scheme must be https");
        }
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (tls != null) {
            b.sslContext(tls.sslContext());
        }
        this.http = b.build();
    }

    public URI base() {
        return base;
    }

    public PrepareResult prepare(SnapshotRequest r) {
        return post("/v1/dump/prepare", r, PrepareResult.class);
    }

    public DumpResult dump(String snapshotId) {
        return post("/v1/dump/dump", Map.of("snapshotId", snapshotId), DumpResult.class);
    }

    public Manifest commit(String snapshotId, CommitAction action) {
        return post("/v1/dump/commit", Map.of("snapshotId", snapshotId, "action", action.name().toLowerCase(Locale.ROOT)),
                Manifest.class);
    }

    public Manifest abort(String snapshotId, String reason) {
        return post("/v1/dump/abort", Map.of("snapshotId", snapshotId, "reason", reason), Manifest.class);
    }

    public RestoreResult restore(RestoreRequest r) {
        return post("/v1/restore", r, RestoreResult.class);
    }

    public List<Manifest> list() {
        JavaType t = ManifestJson.JSON.getTypeFactory().constructCollectionType(List.class, Manifest.class);
        return ManifestJson.JSON.convertValue(send("GET", "/v1/snapshots", null), t);
    }

    /** One snapshot's manifest; an unknown id is an {@link AgentCallException} with status 404. */
    public Manifest get(String snapshotId) {
        return ManifestJson.JSON.convertValue(send("GET", "/v1/snapshots/" + snapshotId, null), Manifest.class);
    }

    /** Deletes one snapshot's images; an unknown id is an {@link AgentCallException} with status 404. */
    public void delete(String snapshotId) {
        send("DELETE", "/v1/snapshots/" + snapshotId, null);
    }

    private <T> T post(String path, Object body, Class<T> type) {
        return ManifestJson.JSON.convertValue(send("POST", path, body), type);
    }

    private JsonNode send(String method, String path, Object body) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout)
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json");
            b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(ManifestJson.JSON.writeValueAsBytes(body)));
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            JsonNode json = r.body().length == 0 ? null : ManifestJson.JSON.readTree(r.body());
            if (r.statusCode() != 200) {
                String msg = json != null && json.has("error") ? json.get("error").asText() : new String(r.body());
                throw new AgentCallException(base.toString(), method + " " + path, r.statusCode(), msg);
            }
            return json;
        } catch (IOException e) {
            throw new AgentCallException(base.toString(), method + " " + path, 0, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AgentCallException(base.toString(), method + " " + path, 0, "interrupted");
        }
    }
}
