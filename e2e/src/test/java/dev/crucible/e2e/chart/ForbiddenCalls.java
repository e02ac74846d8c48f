package dev.crucible.e2e.chart;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every request a client made that the API server refused with 403, as {@code METHOD path?query}:
 * installed on the operator's own client, it sees each call of the reconcilers, the informers, leader
 * election and the Event sender, whether or not the code that made it swallowed the error.
 */
final class ForbiddenCalls implements Interceptor {

    private final Set<String> calls = new TreeSet<>();

    @Override
    public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        if (response.code() == 403) {
            synchronized (calls) {
                calls.add(request.method() + " " + request.uri().getRawPath()
                        + (request.uri().getRawQuery() == null ? "" : "?" + request.uri().getRawQuery()));
            }
        }
    }

    List<String> seen() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /**
     * The refused calls that are cluster-wide or in one of these namespaces. The operator watches every
     * namespace of the shared API server, so it also meets other tests' objects, some of which are refused on
     * purpose by admission with a 403 too (a pod whose RuntimeClass does not exist).
     */
    List<String> seenIn(String... namespaces) {
        return seen().stream().filter(call -> !call.contains("/namespaces/")
                || java.util.Arrays.stream(namespaces).anyMatch(ns -> call.contains("/namespaces/" + ns + "/")
                        || call.endsWith("/namespaces/" + ns))).toList();
    }
}
