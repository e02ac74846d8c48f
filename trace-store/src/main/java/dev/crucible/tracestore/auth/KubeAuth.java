package dev.crucible.tracestore.auth;

import dev.crucible.tracestore.common.StoreException;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The store asks the API server, never decides itself: a bearer token is a {@link Caller} only when a TokenReview
 * says so, and a caller reads a rollout's trajectory only when a SubjectAccessReview says it may {@code get} that
 * Rollout ({@code crucible.dev/rollouts}, by name, in its namespace; RBAC does not need the Rollout to still exist).
 * Answers are kept {@code ttl} (keyed by the token's hash, never the token), so a revoked binding takes that long.
 * A writer is the ServiceAccount named in the settings, in the Rollout's own namespace, with a token for the store's
 * audience: a reader's token does not write, and the sidecar's token is no use against the API server.
 */
public final class KubeAuth {
    public static final String GROUP = "crucible.dev";
    public static final String RESOURCE = "rollouts";
    private static final int MAX_CACHED = 10_000;

    private final KubernetesClient client;
    private final Duration ttl;
    private final String writerServiceAccount;
    private final String writerAudience;
    private final Map<String, Timed<Caller>> callers = new ConcurrentHashMap<>();
    private final Map<String, Timed<Boolean>> decisions = new ConcurrentHashMap<>();

    private record Timed<T>(T value, long until) {}

    public KubeAuth(KubernetesClient client, Duration ttl, String writerServiceAccount, String writerAudience) {
        this.client = client;
        this.ttl = ttl;
        this.writerServiceAccount = writerServiceAccount;
        this.writerAudience = writerAudience == null ? "" : writerAudience;
    }

    /** The caller of an {@code Authorization} header (reader tokens: the API server's own audience); 401 otherwise. */
    public Caller reader(String authorization) {
        return authenticate(authorization, "");
    }

    /** The writer of {@code namespace}'s trajectories, or 401/403 saying what was expected. */
    public Caller writer(String authorization, String namespace) {
        Caller c = authenticate(authorization, writerAudience);
        String expected = "system:serviceaccount:" + namespace + ":" + writerServiceAccount;
        if (!expected.equals(c.user())) {
            throw new StoreException(403, "forbidden: " + c.user() + " may not write trajectories of namespace "
                    + namespace + " (only " + expected + ")");
        }
        return c;
    }

    /** 403 unless {@code caller} may {@code get} the Rollout {@code namespace/name}. */
    public void requireGet(Caller caller, String namespace, String name) {
        if (!allowed(caller, "get", namespace, name)) {
            throw new StoreException(403, "forbidden: " + caller.user() + " cannot get rollouts." + GROUP + " \""
                    + name + "\" in namespace " + namespace + ", so not its trajectory either");
        }
    }

    /** Whether {@code caller} may {@code list} Rollouts in {@code namespace} (empty: in every namespace). */
    public boolean mayList(Caller caller, String namespace) {
        return allowed(caller, "list", namespace, "");
    }

    private Caller authenticate(String authorization, String audience) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7) || authorization.length() < 8) {
            throw new StoreException(401, "unauthorized: send Authorization: Bearer <a Kubernetes token>");
        }
        String token = authorization.substring(7).trim();
        String key = hash(audience + "\n" + token);
        Caller c = cached(callers, key, () -> {
            TokenReviewBuilder b = new TokenReviewBuilder().withNewSpec().withToken(token).endSpec();
            if (!audience.isEmpty()) b.editSpec().withAudiences(List.of(audience)).endSpec();
            TokenReview r = client.tokenReviews().create(b.build());
            if (r.getStatus() == null || !Boolean.TRUE.equals(r.getStatus().getAuthenticated())) {
                return null;
            }
            UserInfo u = r.getStatus().getUser();
            return new Caller(u.getUsername(), u.getUid(), u.getGroups() == null ? List.of() : u.getGroups(),
                    u.getExtra() == null ? Map.of() : u.getExtra());
        });
        if (c == null) {
            throw new StoreException(401, "unauthorized: the API server did not accept this token"
                    + (audience.isEmpty() ? "" : " for audience " + audience));
        }
        return c;
    }

    private boolean allowed(Caller c, String verb, String namespace, String name) {
        String key = c.user() + "\n" + c.uid() + "\n" + String.join(",", c.groups()) + "\n" + verb + "\n" + namespace + "\n" + name;
        return cached(decisions, key, () -> {
            SubjectAccessReview r = client.authorization().v1().subjectAccessReview().create(new SubjectAccessReviewBuilder()
                    .withNewSpec().withUser(c.user()).withUid(c.uid()).withGroups(c.groups()).withExtra(c.extra())
                    .withNewResourceAttributes().withGroup(GROUP).withResource(RESOURCE).withVerb(verb)
                    .withNamespace(namespace).withName(name.isEmpty() ? null : name).endResourceAttributes()
                    .endSpec().build());
            return r.getStatus() != null && Boolean.TRUE.equals(r.getStatus().getAllowed());
        });
    }

    private <T> T cached(Map<String, Timed<T>> cache, String key, Supplier<T> ask) {
        long now = System.nanoTime();
        Timed<T> t = cache.get(key);
        if (t != null && t.until() - now > 0) return t.value();
        T v;
        try {
            v = ask.get();
        } catch (RuntimeException e) {
            throw new StoreException(503, "the API server could not be asked (TokenReview/SubjectAccessReview): " + e.getMessage());
        }
        if (cache.size() >= MAX_CACHED) cache.clear(); // bounded: a flood of tokens costs reviews, not memory
        cache.put(key, new Timed<>(v, now + ttl.toNanos()));
        return v;
    }

    private static String hash(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
