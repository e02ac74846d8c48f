package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.target.ResolvedTarget;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's in-flight snapshots and pauses, by id. Kept apart because every phase and the
 * watchdog look sessions up here, and because the two exclusivity rules live here: one session per
 * snapshot id, and one per target tree (two freezes of the same tree would thaw each other).
 */
final class Sessions {

    private final Map<String, Session> byId = new ConcurrentHashMap<>();

    /** Adds {@code s} unless its id is already in flight (then false). */
    boolean add(Session s) {
        return byId.putIfAbsent(s.id, s) == null;
    }

    /** Adds a pause under its fresh random id. */
    void put(Session s) {
        byId.put(s.id, s);
    }

    Session get(String id) {
        return byId.get(id);
    }

    boolean holds(String id) {
        return byId.containsKey(id);
    }

    void remove(String id) {
        byId.remove(id);
    }

    /** Removes {@code s} only if it is still the session under its id. */
    void remove(Session s) {
        byId.remove(s.id, s);
    }

    List<Session> all() {
        return List.copyOf(byId.values());
    }

    /** A copy, for callers outside the engine. */
    Set<String> ids() {
        return Set.copyOf(byId.keySet());
    }

    /** A live, read-only view (recovery checks it as it goes). */
    Set<String> liveIds() {
        return Collections.unmodifiableSet(byId.keySet());
    }

    /** Refuses a target whose tree another session already holds. */
    void requireFree(ResolvedTarget t) {
        for (Session other : byId.values()) {
            if (other.target != null && other.target.root().equals(t.root())) {
                throw new SessionConflictException("target " + t.description() + " is already held by '" + other.id + "'");
            }
        }
    }

    /** The in-flight snapshot (not pause) {@code snapshotId}; the refusal says what became of it if {@code store} knows. */
    Session requireSnapshot(String snapshotId, ImageStore store) {
        SnapshotId id = SnapshotId.of(snapshotId);
        Session s = byId.get(id.value());
        if (s == null || s.pauseOnly) {
            Optional<Manifest> m = store.find(id);
            throw new SessionConflictException("snapshot '" + id + "' is not in progress on this agent"
                    + m.map(x -> " (it is " + x.state + (x.reason == null ? "" : ": " + x.reason) + ")").orElse(""));
        }
        return s;
    }
}
