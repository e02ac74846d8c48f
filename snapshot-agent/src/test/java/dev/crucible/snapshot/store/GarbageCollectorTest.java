package dev.crucible.snapshot.store;

import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GarbageCollectorTest {

    @TempDir
    Path tmp;

    private static final Instant NOW = Instant.parse("2026-01-10T00:00:00Z");

    private void put(ImageStore store, String id, String group, SnapshotState state, Duration age) {
        Manifest m = Manifest.preparing(SnapshotId.of(id), group, "pid 1");
        m.createdAt = NOW.minus(age);
        m.state = state;
        store.create(m);
    }

    @Test
    void keepsNewestNPerGroupDropsExpiredAndOldFailuresButNeverInFlight() {
        ImageStore store = new ImageStore(tmp);
        put(store, "a1", "a", SnapshotState.COMPLETE, Duration.ofMinutes(1));
        put(store, "a2", "a", SnapshotState.COMPLETE, Duration.ofMinutes(2));
        put(store, "a3", "a", SnapshotState.COMPLETE, Duration.ofMinutes(3));
        put(store, "b1", "b", SnapshotState.COMPLETE, Duration.ofDays(8));
        put(store, "f1", "a", SnapshotState.FAILED, Duration.ofHours(30));
        put(store, "f2", "a", SnapshotState.FAILED, Duration.ofHours(1));
        put(store, "p1", "a", SnapshotState.FROZEN, Duration.ofDays(30));
        put(store, "a4", "a", SnapshotState.COMPLETE, Duration.ofMinutes(4));

        var deleted = new GarbageCollector(store).collect(new RetentionPolicy(2, Duration.ofDays(7), Duration.ofHours(24)),
                NOW, id -> id.equals("a4"));

        assertThat(deleted).containsExactlyInAnyOrder("a3", "b1", "f1");
        assertThat(store.list()).extracting(m -> m.id).containsExactlyInAnyOrder("a1", "a2", "a4", "f2", "p1");
    }
}
