package dev.crucible.controllers.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The pools' meters: sums of each pool's last pass, claims by result, a pool's share gone with it, no per-object label. */
class WarmPoolMetricsTest {

    @Test
    void gaugesSumThePoolsLastPassesClaimsCountByResultAndAPoolsShareGoesWithIt() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        WarmPoolMetrics m = new ControllerMetrics(registry).warmPools();
        assertThat(pods(registry, "ready")).isZero();
        m.pool("ns", "calc", 3, 2, 1, 5);
        assertThat(pods(registry, "ready")).isEqualTo(3);
        assertThat(pods(registry, "starting")).isEqualTo(2);
        assertThat(pods(registry, "claimed")).isEqualTo(1);
        assertThat(registry.get(WarmPoolMetrics.TARGET).gauge().value()).isEqualTo(5);
        m.pool("ns", "calc", 0, 4, 2, 4);
        assertThat(pods(registry, "ready")).as("a pool's last pass, not a running sum").isEqualTo(0);
        m.pool("other", "calc", 7, 0, 0, 7);
        assertThat(pods(registry, "ready")).as("summed over pools").isEqualTo(7);
        assertThat(registry.get(WarmPoolMetrics.TARGET).gauge().value()).isEqualTo(11);

        m.claim(true);
        m.claim(true);
        m.claim(false);
        assertThat(registry.get(WarmPoolMetrics.CLAIMS).tag("result", "warm").counter().count()).isEqualTo(2);
        assertThat(registry.get(WarmPoolMetrics.CLAIMS).tag("result", "cold").counter().count()).isEqualTo(1);

        m.pool("ns", "calc", null, null, null, null); // the environment dropped its pool
        assertThat(pods(registry, "starting")).isZero();
        assertThat(pods(registry, "ready")).isEqualTo(7);
        m.remove("other", "calc"); // deleted
        assertThat(pods(registry, "ready")).isZero();
        assertThat(registry.get(WarmPoolMetrics.TARGET).gauge().value()).isZero();
        // bounded: the same meters however many pools came and went, none naming a namespace or an environment
        assertThat(registry.getMeters()).filteredOn(x -> x.getId().getName().startsWith("crucible.warmpool")).hasSize(6)
                .allSatisfy(x -> assertThat(x.getId().getTags()).noneMatch(t -> t.getKey().equals("namespace") || t.getKey().equals("environment")));
    }

    private static double pods(SimpleMeterRegistry r, String state) {
        return r.get(WarmPoolMetrics.PODS).tag("state", state).gauge().value();
    }

}
