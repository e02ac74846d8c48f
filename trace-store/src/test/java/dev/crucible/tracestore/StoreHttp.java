package dev.crucible.tracestore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/** A test's HTTP client of a running store (the JDK's own: real requests over a socket). */
final class StoreHttp {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    private final String base;

    StoreHttp(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    record Reply(int status, byte[] body) {
        String text() { return new String(body, StandardCharsets.UTF_8); }

        JsonNode json() throws Exception { return JSON.readTree(body); }

        @Override
        public String toString() { return status + " " + text(); }
    }

    Reply put(String path, String token, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).PUT(HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) b.header("Authorization", "Bearer " + token);
        HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Reply(r.statusCode(), r.body());
    }

    Reply post(String path, String token, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (token != null) b.header("Authorization", "Bearer " + token);
        HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Reply(r.statusCode(), r.body());
    }

    Reply get(String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).GET();
        if (token != null) b.header("Authorization", "Bearer " + token);
        HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Reply(r.statusCode(), r.body());
    }

    static String rollout(String ns, String name) {
        return "/v1/namespaces/" + ns + "/rollouts/" + name;
    }

    /** JSON Lines of events {@code seq from..to}: the given kinds in turn, data as the sidecar writes it. */
    static byte[] events(long from, String... lines) {
        StringBuilder sb = new StringBuilder();
        long seq = from;
        for (String l : lines) {
            sb.append("{\"seq\":").append(seq++).append(",\"time\":\"2026-11-29T10:00:00Z\",").append(l).append("}\n");
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
