package dev.crucible.console.cluster;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs the console's cluster-mode API in a pod (or beside {@code kubectl proxy}-less access to an API server): reads
 * CRUCIBLE_CONSOLE_API_SERVER (default {@code https://kubernetes.default.svc}), CRUCIBLE_CONSOLE_API_CA (default the
 * ServiceAccount's {@code ca.crt}), CRUCIBLE_CONSOLE_TRACE_STORE_URL (required) and CRUCIBLE_CONSOLE_PORT (8471). It
 * uses no token of its own: every request is answered with the caller's.
 */
public final class ClusterConsoleMain {
    private ClusterConsoleMain() {
    }

    public static void main(String[] args) throws Exception {
        String api = env("CRUCIBLE_CONSOLE_API_SERVER", "https://kubernetes.default.svc");
        Path ca = Path.of(env("CRUCIBLE_CONSOLE_API_CA", "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"));
        String store = env("CRUCIBLE_CONSOLE_TRACE_STORE_URL", null);
        if (store == null) fail("CRUCIBLE_CONSOLE_TRACE_STORE_URL is not set (the trace store's address, e.g. http://crucible-trace-store.crucible-system.svc:8470)");
        if (!Files.isReadable(ca)) fail("CRUCIBLE_CONSOLE_API_CA: " + ca + " cannot be read");
        int port;
        try {
            port = Integer.parseInt(env("CRUCIBLE_CONSOLE_PORT", "8471"));
        } catch (NumberFormatException e) {
            fail("CRUCIBLE_CONSOLE_PORT is not a port number");
            return;
        }
        ClusterConsoleServer server = ClusterConsoleServer.start(new ClusterSource(URI.create(api), Files.readAllBytes(ca), URI.create(store)),
                "0.0.0.0", port);
        System.out.println("crucible console (cluster mode) on port " + server.port() + ", API server " + api + ", trace store " + store);
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }

    private static void fail(String message) {
        System.err.println("crucible console: " + message);
        System.exit(2);
    }
}
