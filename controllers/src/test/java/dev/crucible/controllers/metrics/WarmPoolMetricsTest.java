package dev.crucible.controllers.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The pool's meters follow its last status, count claims by result, and go with the pool. */
class WarmPoolMetricsTest {

    @Test
    void gaugesFollowThePoolClaimsCountByResultAndAPoolsMetersGoWithIt() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        WarmPoolMetrics m = new ControllerMetrics(registry).warmPools();
        m.pool("ns", "calc", 3, 2, 1, 5);
        assertThat(gauge(registry, "ns", "calc", "ready")).isEqualTo(3);
        assertThat(gauge(registry, "ns", "calc", "starting")).isEqualTo(2);
        assertThat(gauge(registry, "ns", "calc", "claimed")).isEqualTo(1);
        assertThat(registry.get(WarmPoolMetrics.TARGET).tag("environment", "calc").gauge().value()).isEqualTo(5);
        m.pool("ns", "calc", 0, 4, 2, 4);
        assertThat(gauge(registry, "ns", "calc", "ready")).as("the last pass, not a sum").isEqualTo(0);
        m.pool("other", "calc", 7, 0, 0, 7);
        assertThat(gauge(registry, "other", "calc", "ready")).as("per namespace").isEqualTo(7);

        m.claim("ns", "calc", true);
        m.claim("ns", "calc", true);
        m.claim("ns", "calc", false);
        assertThat(claims(registry, "ns", "warm")).isEqualTo(2);
        assertThat(claims(registry, "ns", "cold")).isEqualTo(1);
        assertThat(claims(registry, "other", "warm")).isZero();

        m.pool("ns", "calc", null, null, null, null); // the environment dropped its pool
        assertThat(registry.find(WarmPoolMetrics.PODS).tag("namespace", "ns").gauges()).isEmpty();
        assertThat(registry.find(WarmPoolMetrics.CLAIMS).tag("namespace", "ns").counters()).isEmpty();
        assertThat(registry.find(WarmPoolMetrics.PODS).tag("namespace", "other").gauges()).hasSize(3);
        m.remove("other", "calc"); // deleted
        assertThat(registry.find(WarmPoolMetrics.PODS).gauges()).isEmpty();
        assertThat(registry.find(WarmPoolMetrics.TARGET).gauges()).isEmpty();
    }

    private static double gauge(SimpleMeterRegistry r, String ns, String env, String state) {
        return r.get(WarmPoolMetrics.PODS).tag("namespace", ns).tag("environment", env).tag("state", state).gauge().value();
    }

    private static double claims(SimpleMeterRegistry r, String ns, String result) {
        return r.get(WarmPoolMetrics.CLAIMS).tag("namespace", ns).tag("result", result).counter().count();
    }
}
