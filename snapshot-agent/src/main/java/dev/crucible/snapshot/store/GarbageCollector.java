package dev.crucible.snapshot.store;

import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Applies a {@link RetentionPolicy} to the store; snapshots that are in flight are never touched. */
public final class GarbageCollector {

    private final ImageStore store;

    public GarbageCollector(ImageStore store) {
        this.store = store;
    }

    /** Returns the ids it deleted. {@code inFlight} says which ids an operation still holds. */
    public List<String> collect(RetentionPolicy policy, Instant now, Predicate<String> inFlight) {
        List<String> deleted = new ArrayList<>();
        Map<String, Integer> keptPerGroup = new HashMap<>();
        for (Manifest m : store.list()) { // newest first
            if (inFlight.test(m.id) || !m.state.terminal()) {
                continue;
            }
            Instant created = m.createdAt == null ? Instant.EPOCH : m.createdAt;
            boolean expired;
            if (m.state == SnapshotState.FAILED) {
                expired = created.plus(policy.failedTtl()).isBefore(now);
            } else {
                String group = m.group == null ? "" : m.group;
                int kept = keptPerGroup.getOrDefault(group, 0);
                expired = kept >= policy.keepPerGroup() || created.plus(policy.ttl()).isBefore(now);
                if (!expired) {
                    keptPerGroup.put(group, kept + 1);
                }
            }
            if (expired && store.delete(SnapshotId.of(m.id))) {
                deleted.add(m.id);
            }
        }
        return deleted;
    }
}
