package dev.crucible.snapshot.client.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SnapshotIdTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "snap-1", "ro-42_attempt-3", "0abc9"})
    void acceptsStrictNames(String id) {
        assertThat(SnapshotId.of(id).value()).isEqualTo(id);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "..", ".", "../etc", "a/b", "/abs", "Upper", "-lead", "trail-", "a..b", "a b", "a\u0000b",
            "snap.1", "%2e%2e"})
    void refusesAnythingElseNamingTheRule(String id) {
        assertThatThrownBy(() -> SnapshotId.of(id)).isInstanceOf(SnapshotId.InvalidSnapshotIdException.class)
                .hasMessageContaining("snapshotId").hasMessageContaining("must match");
    }

    @org.junit.jupiter.api.Test
    void refusesOverlongAndNull() {
        assertThatThrownBy(() -> SnapshotId.of("a".repeat(129))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SnapshotId.of(null)).hasMessageContaining("<missing>");
    }
}
