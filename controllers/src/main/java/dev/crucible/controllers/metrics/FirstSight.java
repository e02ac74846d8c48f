package dev.crucible.controllers.metrics;

import dev.crucible.api.v1alpha1.Rollout;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When this operator first saw each Rollout, on its own millisecond clock (the informer's ADDED event,
 * before the finalizer write): the origin of {@code status.timings} and of the create→pods /
 * create→Running histograms. {@code creationTimestamp} has whole seconds only (a 405 ms start read
 * 625 ms). A Rollout that already has pods when first reconciled (this operator restarted) falls back
 * to its creationTimestamp. Entries go once Running is timed, at a terminal phase or on delete, so the
 * map holds at most the Rollouts not yet Running; nothing here is a metric label.
 */
public final class FirstSight {

    private final Map<String, Instant> seen = new ConcurrentHashMap<>();
    /** When this operator created a Rollout's pods, until a status that says so is written. */
    private final Map<String, Instant> podsCreated = new ConcurrentHashMap<>();

    /** The informer delivered the Rollout {@code namespace/name} for the first time. */
    public void added(String key, Instant now) {
        seen.putIfAbsent(key, now);
    }

    /** The origin to time {@code rollout} from. */
    public Instant origin(Rollout rollout, Instant now) {
        String key = key(rollout);
        Instant first = seen.get(key);
        Instant podsAt = rollout.getStatus() == null || rollout.getStatus().timings == null
                || rollout.getStatus().timings.podsCreatedAt == null ? null : Instant.parse(rollout.getStatus().timings.podsCreatedAt);
        if (first != null && (podsAt == null || !first.isAfter(podsAt))) {
            return first;
        }
        if (podsAt != null) {
            // Seen only after its pods existed: another operator process started it.
            seen.remove(key);
            return createdAt(rollout, now);
        }
        Instant previous = seen.putIfAbsent(key, now);
        return previous == null ? now : previous;
    }

    /** This operator created every pod of {@code rollout} at {@code at} (its status may say so only later). */
    public void podsCreated(Rollout rollout, Instant at) {
        podsCreated.putIfAbsent(key(rollout), at);
    }

    /** When this operator created the pods of {@code rollout}, if it did and has not forgotten; else null. */
    public Instant podsCreatedAt(Rollout rollout) {
        return podsCreated.get(key(rollout));
    }

    public void forget(Rollout rollout) {
        seen.remove(key(rollout));
        podsCreated.remove(key(rollout));
    }

    public int size() {
        return seen.size();
    }

    private static String key(Rollout r) {
        return r.getMetadata().getNamespace() + "/" + r.getMetadata().getName();
    }

    private static Instant createdAt(Rollout rollout, Instant fallback) {
        String ts = rollout.getMetadata().getCreationTimestamp();
        return ts == null ? fallback : Instant.parse(ts);
    }
}
