package dev.crucible.console.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The console's cluster mode (issue 37, point 1): Rollouts from the API server and trajectories from the trace store,
 * each asked with the caller's own bearer token. The console holds no power of its own: what the caller may not see,
 * the API server (RBAC on {@code rollouts.crucible.dev}) or the store (TokenReview + SubjectAccessReview for {@code get}
 * on the Rollout) refuses, and that refusal is what the caller gets.
 */
public final class ClusterSource {
    private static final String GROUP = "/apis/crucible.dev/v1alpha1";
    /** A Kubernetes name (namespace or Rollout): checked before it goes into a URL. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI apiServer;
    private final URI store;
    private final HttpClient api;
    private final HttpClient storeClient;

    /** {@code caPem}: the API server's CA (in a pod, the ServiceAccount's {@code ca.crt}). */
    public ClusterSource(URI apiServer, byte[] caPem, URI store) {
        this.apiServer = apiServer;
        this.store = store;
        this.api = HttpClient.newBuilder().sslContext(trusting(caPem)).connectTimeout(Duration.ofSeconds(10)).build();
        this.storeClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** A refusal or failure to pass on: the status the API server or the store answered (or 502), and why. */
    public static final class Refused extends RuntimeException {
        public final int status;

        Refused(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    /**
     * The rollouts the caller may see. Live Rollouts: the whole cluster's when the API server lets the caller list them
     * everywhere, else those of each namespace it lets the caller list, among the namespaces the store's index shows the
     * caller (the store asks a SubjectAccessReview per namespace) and those named in {@code namespaces}. Then the stored
     * trajectories the index shows the caller, also of Rollouts deleted since. One row per namespace/name.
     */
    public ObjectNode rollouts(String token, Collection<String> namespaces) {
        for (String ns : namespaces) name("namespace", ns);
        Map<String, ObjectNode> rows = new LinkedHashMap<>();
        JsonNode index = storeIndex(token);
        TreeSet<String> candidates = new TreeSet<>(namespaces);
        for (JsonNode r : index.path("rollouts")) candidates.add(r.path("namespace").asText());

        ArrayNode listed = JSON.createArrayNode();
        ArrayNode refused = JSON.createArrayNode();
        Reply all = get(api, apiServer + GROUP + "/rollouts", token);
        if (all.status == 200) {
            live(all, rows);
            listed.add("*");
        } else if (all.status == 403) {
            for (String ns : candidates) {
                Reply one = get(api, apiServer + GROUP + "/namespaces/" + name("namespace", ns) + "/rollouts", token);
                if (one.status == 200) {
                    live(one, rows);
                    listed.add(ns);
                } else if (one.status == 403) {
                    refused.add(ns);
                } else {
                    throw failed("the API server", one);
                }
            }
        } else {
            throw failed("the API server", all);
        }
        for (JsonNode r : index.path("rollouts")) {
            ObjectNode row = rows.computeIfAbsent(r.path("namespace").asText() + "/" + r.path("name").asText(), k -> {
                ObjectNode n = JSON.createObjectNode();
                n.put("namespace", r.path("namespace").asText()).put("name", r.path("name").asText()).put("live", false);
                n.set("phase", r.path("phase"));
                n.set("reward", r.path("reward"));
                n.set("environment", r.path("environment"));
                return n;
            });
            ObjectNode stored = row.putObject("stored");
            stored.put("events", r.path("events").asLong()).put("bytes", r.path("bytes").asLong()).put("ended", r.path("ended").asBoolean());
            stored.set("detectors", r.path("detectors"));
        }
        ObjectNode out = JSON.createObjectNode();
        out.set("learnableBands", bands(token, listed));
        out.set("listedNamespaces", listed);
        out.set("refusedNamespaces", refused);
        out.putArray("rollouts").addAll(rows.values());
        return out;
    }

    /**
     * {@code spec.learnableBand} of each RLEnvironment the caller may list in the namespaces whose Rollouts it listed
     * ("*": all), by environment name (the name a Rollout's row carries); the first seen where two namespaces share a
     * name. A refusal leaves those environments at the default band.
     */
    private ObjectNode bands(String token, ArrayNode listed) {
        ObjectNode out = JSON.createObjectNode();
        for (JsonNode ns : listed) {
            String at = ns.asText().equals("*") ? "" : "/namespaces/" + name("namespace", ns.asText());
            Reply r = get(api, apiServer + GROUP + at + "/rlenvironments", token);
            if (r.status != 200) continue;
            for (JsonNode e : r.json().path("items")) {
                JsonNode b = e.path("spec").path("learnableBand");
                String env = e.path("metadata").path("name").asText("");
                if (env.isEmpty() || !b.isObject() || out.has(env)) continue;
                out.putObject(env).put("from", "RLEnvironment " + e.path("metadata").path("namespace").asText() + "/" + env)
                        .set("band", b);
            }
        }
        return out;
    }

    /**
     * Events {@code from} (a seq, 1 = the first) of one rollout's stored trajectory, at most {@code limit}, read line by
     * line from the store's segments (a week-long run is never held whole). The store's 401/403/404 pass through.
     */
    public ObjectNode trace(String token, String namespace, String name, long from, int limit) {
        String base = store + "/v1/namespaces/" + name("namespace", namespace) + "/rollouts/" + name("rollout", name);
        Reply segments = get(storeClient, base + "/segments", token);
        if (segments.status != 200) throw failed("the trace store", segments);
        ObjectNode out = JSON.createObjectNode().put("namespace", namespace).put("name", name).put("from", from);
        ArrayNode events = out.putArray("events");
        boolean more = false;
        for (JsonNode seg : segments.json().path("segments")) {
            if (more) break;
            try (Stream<String> lines = lines(base + "/segments/" + seg.path("number").asInt(), token)) {
                Iterator<String> it = lines.iterator();
                while (it.hasNext()) {
                    String line = it.next();
                    if (line.isBlank()) continue;
                    JsonNode e = JSON.readTree(line);
                    if (e.path("seq").asLong() < from) continue;
                    if (events.size() == limit) {
                        more = true;
                        break;
                    }
                    events.add(e);
                }
            } catch (IOException e) {
                throw new Refused(502, "the trace store sent a line that is not JSON in " + namespace + "/" + name + ": " + e.getMessage());
            }
        }
        out.put("more", more);
        return out;
    }

    /**
     * One of a stored rollout's files, as the store serves it to the caller ({@code tail}: {@code segments},
     * {@code segments/N} or {@code blobs/sha256/HEX}); {@code null} when the store has none (404).
     */
    public byte[] stored(String token, String namespace, String name, String tail) {
        if (!tail.matches("segments(/[0-9]{1,6})?|blobs/sha256/[0-9a-f]{64}")) throw new Refused(400, "not a stored file: " + tail);
        Reply r = get(storeClient, store + "/v1/namespaces/" + name("namespace", namespace) + "/rollouts/" + name("rollout", name) + "/" + tail, token);
        if (r.status == 404) return null;
        if (r.status != 200) throw failed("the trace store", r);
        return r.body();
    }

    /**
     * One Rollout (as the API server answers it to the caller), or the RolloutSnapshots of a namespace: {@code what} is
     * {@code rollouts/NAME} or {@code rolloutsnapshots}. A refusal passes through with its status.
     */
    public JsonNode resource(String token, String namespace, String what) {
        if (!what.equals("rolloutsnapshots") && !what.matches("rollouts/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")) {
            throw new Refused(400, "not a resource: " + what);
        }
        Reply r = get(api, apiServer + GROUP + "/namespaces/" + name("namespace", namespace) + "/" + what, token);
        if (r.status != 200) throw failed("the API server", r);
        return r.json();
    }

    /** Creates a Rollout with the caller's token; the API server's answer (the created object), or its refusal. */
    public JsonNode createRollout(String token, String namespace, ObjectNode rollout) {
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create(apiServer + GROUP + "/namespaces/" + name("namespace", namespace) + "/rollouts"))
                    .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + token).header("Accept", "application/json")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(rollout))).build();
            HttpResponse<byte[]> res = api.send(req, HttpResponse.BodyHandlers.ofByteArray());
            Reply r = new Reply(res.statusCode(), res.body());
            if (r.status == 201 || r.status == 200) return r.json();
            if (r.status == 409 || r.status == 422) throw new Refused(r.status, "the API server answered " + r.status + ": " + message(r));
            throw failed("the API server", r);
        } catch (IOException e) {
            throw new Refused(502, "the API server could not be reached: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused(503, "interrupted");
        }
    }

    /** A Kubernetes Status's message, else the body's head. */
    static String message(Reply r) {
        try {
            JsonNode n = JSON.readTree(r.body());
            if (n != null && n.hasNonNull("message")) return n.get("message").asText();
        } catch (IOException e) {
            // not a Status: its text below
        }
        return r.text().length() > 300 ? r.text().substring(0, 300) + "…" : r.text();
    }

    private JsonNode storeIndex(String token) {
        Reply r = get(storeClient, store + "/v1/rollouts?limit=1000", token);
        if (r.status != 200) throw failed("the trace store", r);
        return r.json();
    }

    private static void live(Reply list, Map<String, ObjectNode> rows) {
        for (JsonNode item : list.json().path("items")) {
            JsonNode meta = item.path("metadata");
            JsonNode status = item.path("status");
            ObjectNode n = JSON.createObjectNode();
            n.put("namespace", meta.path("namespace").asText()).put("name", meta.path("name").asText()).put("live", true);
            n.set("phase", status.path("phase"));
            n.set("reward", status.path("reward"));
            n.set("environment", item.path("spec").path("environmentRef").path("name"));
            n.set("trajectory", status.path("trajectory"));
            // what the pages show of a live Rollout (result.json's fields of the same names)
            n.set("reason", status.path("reason"));
            n.set("message", status.path("message"));
            n.set("testReward", status.path("testReward"));
            n.set("verdict", status.path("verdict"));
            n.set("tests", status.path("tests"));
            n.set("hackFindings", status.path("hackFindings"));
            n.set("startedAt", meta.path("creationTimestamp"));
            // a branch: the snapshot it was restored from (status once restored, else the spec asking for it)
            JsonNode from = status.path("restoredFrom").isTextual() ? status.path("restoredFrom")
                    : item.path("spec").path("restoreFrom").path("snapshotName");
            if (from.isTextual()) n.set("restoredFrom", from);
            n.set("labels", meta.path("labels"));
            rows.put(meta.path("namespace").asText() + "/" + meta.path("name").asText(), n);
        }
    }

    private static String name(String field, String value) {
        if (value == null || !NAME.matcher(value).matches()) {
            throw new Refused(400, field + " '" + value + "' is not a Kubernetes name");
        }
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static Refused failed(String who, Reply r) {
        String why = message(r);
        int status = r.status == 401 || r.status == 403 || r.status == 404 || r.status == 400 ? r.status : 502;
        return new Refused(status, who + " answered " + r.status + ": " + why);
    }

    private record Reply(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new Refused(502, "not JSON: " + text());
            }
        }
    }

    private static Reply get(HttpClient client, String url, String token) {
        try {
            HttpResponse<byte[]> r = client.send(request(url, token), HttpResponse.BodyHandlers.ofByteArray());
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new Refused(502, url.replaceAll("\\?.*", "") + " could not be reached: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused(503, "interrupted");
        }
    }

    private Stream<String> lines(String url, String token) {
        try {
            HttpResponse<Stream<String>> r = storeClient.send(request(url, token), HttpResponse.BodyHandlers.ofLines());
            if (r.statusCode() != 200) {
                String body = r.body().limit(5).reduce("", (a, b) -> a + b);
                throw failed("the trace store", new Reply(r.statusCode(), body.getBytes(StandardCharsets.UTF_8)));
            }
            return r.body();
        } catch (IOException e) {
            throw new Refused(502, "the trace store could not be reached: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused(503, "interrupted");
        }
    }

    private static HttpRequest request(String url, String token) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + token)
                .header("Accept", "application/json").GET().build();
    }

    private static SSLContext trusting(byte[] caPem) {
        try {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(caPem))) {
                ks.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) throw new IllegalArgumentException("the API server's CA holds no certificate");
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            return ssl;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalArgumentException("the API server's CA cannot be read: " + e.getMessage(), e);
        }
    }

    static List<String> namespaces(List<String> params) {
        return params.stream().flatMap(p -> Stream.of(p.split(","))).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
