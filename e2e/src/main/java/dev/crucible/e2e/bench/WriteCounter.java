package dev.crucible.e2e.bench;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every write the operator's client sends (POST, PUT, PATCH, DELETE), counted per method and resource
 * ("PATCH pods/status"): on the operator's own client it sees the reconcilers, the Event sender and
 * leader election alike, answered or not.
 */
final class WriteCounter implements Interceptor {

    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    @Override
    public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        String method = request.method();
        if (method.equals("GET")) return;
        count(method + " " + resource(request.uri().getRawPath()));
    }

    /** Counts one write under {@code key} ("PATCH pods/status"), e.g. one read from an API server audit log. */
    void count(String key) {
        counts.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
    }

    /** ".../namespaces/NS/rollouts/NAME/status" → "rollouts/status"; ".../namespaces/NS/pods" → "pods". */
    static String resource(String path) {
        String[] parts = path.split("/");
        int ns = -1;
        for (int i = 0; i < parts.length - 1; i++) if (parts[i].equals("namespaces")) ns = i;
        int start = ns >= 0 && ns + 2 < parts.length ? ns + 2 : Math.max(0, parts.length - 2);
        String kind = parts[start];
        return start + 2 < parts.length ? kind + "/" + parts[start + 2] : kind;
    }

    /** Writes whose key contains {@code part} ("rlenvironments", "DELETE pods"). */
    long writesMatching(String part) {
        return counts.entrySet().stream().filter(e -> e.getKey().contains(part)).mapToLong(e -> e.getValue().get()).sum();
    }

    long total() {
        return counts.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Counts by method and resource, largest first as "PATCH rollouts/status=2000 POST pods=1000". */
    String breakdown() {
        Map<Long, List<String>> byCount = new TreeMap<>(java.util.Comparator.reverseOrder());
        counts.forEach((k, v) -> byCount.computeIfAbsent(v.get(), c -> new java.util.ArrayList<>()).add(k));
        StringBuilder s = new StringBuilder();
        byCount.forEach((c, keys) -> keys.stream().sorted().forEach(k -> s.append(s.isEmpty() ? "" : " ").append(k).append('=').append(c)));
        return s.toString();
    }

    void reset() {
        counts.clear();
    }
}
