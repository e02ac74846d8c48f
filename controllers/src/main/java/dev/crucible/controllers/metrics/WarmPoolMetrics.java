package dev.crucible.controllers.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;

/**
 * Warm pools (issue 39) as meters, summed over every environment's pool: unclaimed pods by state (ready, starting)
 * and claimed ones ({@code crucible.warmpool.pods{state}}), the pools' targets ({@code crucible.warmpool.target}), and
 * the claims of Rollouts that could take a pool pod, by result ({@code crucible.warmpool.claims{result}}: warm, a pool
 * pod taken; cold, none was ready so the Rollout started cold). No label names a namespace or an environment, as for
 * every operator meter (a bounded series count, operator/README.md); a pool's own counts are in its environment's
 * status.warmPool and {@code kubectl get rlenv -o wide}. A pool's share leaves the sums when its environment is deleted
 * or drops its pool.
 */
public final class WarmPoolMetrics {
    public static final String PODS = "crucible.warmpool.pods";
    public static final String TARGET = "crucible.warmpool.target";
    public static final String CLAIMS = "crucible.warmpool.claims";

    /** One pool's last counts. */
    private record Counts(int ready, int starting, int claimed, int target) {
    }

    private final Map<String, Counts> pools = new ConcurrentHashMap<>();
    private final Counter warm;
    private final Counter cold;

    public WarmPoolMetrics(MeterRegistry registry) {
        gauge(registry, PODS, "ready", Counts::ready);
        gauge(registry, PODS, "starting", Counts::starting);
        gauge(registry, PODS, "claimed", Counts::claimed);
        Gauge.builder(TARGET, pools, m -> sum(m, Counts::target)).strongReference(true)
                .description("Unclaimed pods the pools aim for (each: the last minute's claims between min and max)").register(registry);
        String claims = "Rollouts that fitted a pool, by whether they took a pool pod (warm) or found none ready (cold)";
        warm = Counter.builder(CLAIMS).tag("result", "warm").description(claims).register(registry);
        cold = Counter.builder(CLAIMS).tag("result", "cold").description(claims).register(registry);
    }

    private void gauge(MeterRegistry registry, String name, String state, ToIntFunction<Counts> count) {
        Gauge.builder(name, pools, m -> sum(m, count)).strongReference(true).tag("state", state)
                .description("Pods of the warm pools by state (ready and starting are unclaimed)").register(registry);
    }

    private static double sum(Map<String, Counts> pools, ToIntFunction<Counts> count) {
        return pools.values().stream().mapToInt(count).sum();
    }

    /** The counts of one pass of a pool's filler; all null: the environment has no pool (its share goes). */
    public void pool(String namespace, String environment, Integer ready, Integer starting, Integer claimed, Integer target) {
        String key = namespace + "/" + environment;
        if (ready == null && starting == null && claimed == null && target == null) {
            pools.remove(key);
            return;
        }
        pools.put(key, new Counts(orZero(ready), orZero(starting), orZero(claimed), orZero(target)));
    }

    /** One Rollout that fitted a pool: it took a pool pod (warm) or found none ready and started cold. */
    public void claim(boolean warmStart) {
        (warmStart ? warm : cold).increment();
    }

    /** The environment was deleted: its pool's share goes. */
    public void remove(String namespace, String environment) {
        pools.remove(namespace + "/" + environment);
    }

    private static int orZero(Integer v) {
        return v == null ? 0 : v;
    }
}
