package dev.crucible.operator.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The readiness decision of issue 41's soak: a reconnecting watch keeps readiness; one that stays down does not. */
class WatchReadinessTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Map<String, String> PODS_DOWN = Map.of("rollout/pods", "namespace (all): running=true watching=false synced=true");

    @Test
    void aWatchUnhealthyForLessThanTheGraceKeepsReadinessAndIsLoggedOnceAtWarn() {
        WatchReadiness r = new WatchReadiness(Duration.ofSeconds(30));
        WatchReadiness.Verdict first = r.observe(PODS_DOWN, T0);
        assertThat(first.ready()).isTrue();
        assertThat(first.warnings()).singleElement().asString().contains("rollout/pods").contains("watching=false")
                .contains("readiness kept for up to 30 s");
        WatchReadiness.Verdict again = r.observe(PODS_DOWN, T0.plusSeconds(5));
        assertThat(again.ready()).isTrue();
        assertThat(again.warnings()).as("said once per episode").isEmpty();
        WatchReadiness.Verdict back = r.observe(Map.of(), T0.plusSeconds(8));
        assertThat(back.ready()).isTrue();
        assertThat(back.warnings()).singleElement().asString().contains("healthy again after 8 s").contains("readiness was kept");
    }

    @Test
    void aWatchUnhealthyPastTheGraceTurnsReadinessDownWithTheCauseUntilItRecovers() {
        WatchReadiness r = new WatchReadiness(Duration.ofSeconds(30));
        r.observe(PODS_DOWN, T0);
        assertThat(r.observe(PODS_DOWN, T0.plusSeconds(29)).ready()).isTrue();
        WatchReadiness.Verdict down = r.observe(PODS_DOWN, T0.plusSeconds(30));
        assertThat(down.ready()).isFalse();
        assertThat(down.down()).containsKey("rollout/pods");
        assertThat(down.warnings()).singleElement().asString().startsWith("readiness down: watch rollout/pods unhealthy for 30 s");
        assertThat(r.observe(PODS_DOWN, T0.plusSeconds(35)).warnings()).isEmpty();
        WatchReadiness.Verdict up = r.observe(Map.of(), T0.plusSeconds(40));
        assertThat(up.ready()).isTrue();
        assertThat(up.warnings()).singleElement().asString().contains("ready again");
    }

    /** The soak's pattern: 19 short reconnects in 22 minutes would have been 19 readiness drops; now none. */
    @Test
    void repeatedBriefReconnectsNeverTurnReadinessDown() {
        WatchReadiness r = new WatchReadiness(Duration.ofSeconds(30));
        int downs = 0;
        Instant t = T0;
        for (int i = 0; i < 19; i++) {
            downs += r.observe(PODS_DOWN, t).ready() ? 0 : 1;
            downs += r.observe(PODS_DOWN, t.plusSeconds(5)).ready() ? 0 : 1;
            downs += r.observe(Map.of(), t.plusSeconds(10)).ready() ? 0 : 1;
            t = t.plusSeconds(70);
        }
        assertThat(downs).isZero();
        // and a new episode of the same watch starts its own grace: not carried over from the last one
        r.observe(PODS_DOWN, t);
        assertThat(r.observe(PODS_DOWN, t.plusSeconds(29)).ready()).isTrue();
    }
}
