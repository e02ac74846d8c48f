package dev.crucible.verifier.pod;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Where a rollout pod's sidecar records the rollout's trajectory, and the cluster trace store it streams it to
 * (issue 36; trace-store/README.md), from the operator's variables:
 * <ul>
 *   <li>{@code CRUCIBLE_TRACE_DIR}: the recorder's folder. Default: a new folder in the sidecar's own temporary folder
 *       (in a pod, the verifier's private {@code /tmp} volume: no other container mounts it, so the agent can neither
 *       read nor rewrite its trajectory).</li>
 *   <li>{@code CRUCIBLE_TRACE_STORE_URL} (optional, {@code http(s)://host:port}): the store. With it,
 *       {@code CRUCIBLE_TRACE_TOKEN_FILE} (a projected ServiceAccount token for the store's audience, read again at
 *       each request since the kubelet rotates it) and the rollout's identity, {@code CRUCIBLE_NAMESPACE} and
 *       {@code CRUCIBLE_ROLLOUT}, are required; a warm pool pod learns its identity from the claim instead.</li>
 * </ul>
 */
public record PodTrace(Path dir, URI store, Path tokenFile, String namespace, String rollout) {
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

    /** Reads the variables above; a malformed or missing one is an error naming it. {@code warm}: the identity comes later. */
    public static PodTrace fromEnvironment(Map<String, String> env, boolean warm) {
        Path dir = blank(env.get("CRUCIBLE_TRACE_DIR")) ? null : Path.of(env.get("CRUCIBLE_TRACE_DIR"));
        String url = env.get("CRUCIBLE_TRACE_STORE_URL");
        if (blank(url)) return new PodTrace(dir, null, null, null, null);
        URI store;
        try {
            store = URI.create(url.strip().replaceAll("/+$", ""));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("CRUCIBLE_TRACE_STORE_URL: not a URL: '" + url + "'");
        }
        if (!("http".equals(store.getScheme()) || "https".equals(store.getScheme())) || store.getHost() == null) {
            throw new IllegalArgumentException("CRUCIBLE_TRACE_STORE_URL: expected http(s)://host:port, got '" + url + "'");
        }
        String token = env.get("CRUCIBLE_TRACE_TOKEN_FILE");
        if (blank(token)) throw new IllegalArgumentException("CRUCIBLE_TRACE_TOKEN_FILE: required with CRUCIBLE_TRACE_STORE_URL");
        PodTrace t = new PodTrace(dir, store, Path.of(token), null, null);
        return warm ? t : t.claimedBy(env.get("CRUCIBLE_NAMESPACE"), env.get("CRUCIBLE_ROLLOUT"));
    }

    /** The same, for the rollout {@code namespace/name} (a warm pool pod's claim names it). */
    public PodTrace claimedBy(String namespace, String name) {
        if (store == null) return this;
        check("CRUCIBLE_NAMESPACE", namespace);
        check("CRUCIBLE_ROLLOUT", name);
        return new PodTrace(dir, store, tokenFile, namespace, name);
    }

    /** Whether a store was configured. */
    public boolean ships() {
        return store != null;
    }

    /** The store's URL of this rollout ({@code …/v1/namespaces/NS/rollouts/NAME}). */
    public URI rolloutUri() {
        return URI.create(store + "/v1/namespaces/" + namespace + "/rollouts/" + rollout);
    }

    /** The token, read at each call (rotated on disk by the kubelet); an unreadable file is an empty token (the store says 401). */
    public Supplier<String> token() {
        return () -> {
            try {
                return Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                return "";
            }
        };
    }

    /** The recorder's folder: {@link #dir} or a new one in the temporary folder. */
    public Path recorderDir() {
        try {
            return dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("crucible-trajectory-");
        } catch (IOException e) {
            throw new UncheckedIOException("CRUCIBLE_TRACE_DIR: cannot make " + (dir != null ? dir : "a temporary folder"), e);
        }
    }

    private static void check(String variable, String value) {
        if (blank(value)) throw new IllegalArgumentException(variable + ": required with CRUCIBLE_TRACE_STORE_URL");
        if (!DNS_LABEL.matcher(value).matches()) {
            throw new IllegalArgumentException(variable + ": not a Kubernetes name: '" + value + "'");
        }
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
