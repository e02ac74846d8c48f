package dev.crucible.controllers.rollout;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Pool pods this operator has tried to claim, by uid and the resourceVersion it tried: until its pod cache
 * shows a newer version of one, no other claimer here tries it again. Only a hint that spares refused
 * writes; the API server's resourceVersion check is what keeps a pod to one claim.
 */
final class TakenPods {
    /** Longer than a watch event takes, even under load; then the pod's version in the cache decides. */
    private static final Duration KEEP = Duration.ofSeconds(30);

    private record Tried(String resourceVersion, Instant at) {
    }

    private final Map<String, Tried> tried = new ConcurrentHashMap<>();

    /** Tried at the version the cache still shows. */
    boolean contains(Pod p) {
        Tried t = tried.get(p.getMetadata().getUid());
        return t != null && t.resourceVersion().equals(p.getMetadata().getResourceVersion());
    }

    void add(Pod p, Instant now) {
        if (tried.size() > 10_000) {
            tried.values().removeIf(t -> t.at().isBefore(now.minus(KEEP)));
        }
        tried.put(p.getMetadata().getUid(), new Tried(p.getMetadata().getResourceVersion(), now));
    }
}
