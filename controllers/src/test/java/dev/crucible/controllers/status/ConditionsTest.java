package dev.crucible.controllers.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {

    @Test
    void transitionTimeMovesOnlyWhenStatusChanges() {
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        var c1 = Conditions.set(List.of(), "Ready", false, "Starting", "m1", 1L, t0);
        var c2 = Conditions.set(c1, "Ready", false, "Scheduling", "m2", 2L, t0.plusSeconds(10));
        assertThat(c2).singleElement().satisfies(c -> {
            assertThat(c.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");
            assertThat(c.getReason()).isEqualTo("Scheduling");
            assertThat(c.getObservedGeneration()).isEqualTo(2L);
        });
        var c3 = Conditions.set(c2, "Ready", true, "Running", null, 2L, t0.plusSeconds(20));
        assertThat(c3.get(0).getLastTransitionTime()).isEqualTo("2026-01-01T00:00:20Z");
        assertThat(c3.get(0).getMessage()).isEmpty();
        assertThat(Conditions.isTrue(c3, "Ready")).isTrue();
        assertThat(Conditions.remove(c3, "Ready")).isEmpty();
    }
}
