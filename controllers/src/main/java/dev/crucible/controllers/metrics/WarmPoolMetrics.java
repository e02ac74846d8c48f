package dev.crucible.controllers.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Warm pools (issue 39) as meters: per environment with a pool, its unclaimed pods by state (ready,
 * starting), its claimed pods and its target ({@code crucible.warmpool.pods}, {@code crucible.warmpool.target}),
 * and the claims of Rollouts that could take a pool pod, by result ({@code crucible.warmpool.claims}: warm,
 * a pool pod taken; cold, none ready so the Rollout started cold). Tagged by namespace and environment, unlike the
 * Rollout meters: the series are bounded by the environments that declare a pool (not by Rollouts), and a pool's
 * meters are removed when its environment is deleted or drops its pool.
 */
public final class WarmPoolMetrics {
    public static final String PODS = "crucible.warmpool.pods";
    public static final String TARGET = "crucible.warmpool.target";
    public static final String CLAIMS = "crucible.warmpool.claims";

    private final MeterRegistry registry;
    private final Map<String, Pool> pools = new ConcurrentHashMap<>();

    public WarmPoolMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The counts of one pass of the pool's filler; all null: the environment has no pool (its meters go). */
    public void pool(String namespace, String environment, Integer ready, Integer starting, Integer claimed, Integer target) {
        String key = namespace + "/" + environment;
        if (ready == null && starting == null && claimed == null && target == null) {
            remove(key);
            return;
        }
        Pool p = pools.computeIfAbsent(key, k -> new Pool(registry, namespace, environment));
        p.ready.set(orZero(ready));
        p.starting.set(orZero(starting));
        p.claimed.set(orZero(claimed));
        p.target.set(orZero(target));
    }

    /** One Rollout that fitted the pool: it took a pool pod (warm) or found none ready and started cold. */
    public void claim(String namespace, String environment, boolean warm) {
        Pool p = pools.computeIfAbsent(namespace + "/" + environment, k -> new Pool(registry, namespace, environment));
        (warm ? p.warm : p.cold).increment();
    }

    /** The environment was deleted: its pool's meters go. */
    public void remove(String namespace, String environment) {
        remove(namespace + "/" + environment);
    }

    private void remove(String key) {
        Pool p = pools.remove(key);
        if (p != null) {
            p.meters.forEach(registry::remove);
        }
    }

    private static int orZero(Integer v) {
        return v == null ? 0 : v;
    }

    private static final class Pool {
        final AtomicInteger ready = new AtomicInteger();
        final AtomicInteger starting = new AtomicInteger();
        final AtomicInteger claimed = new AtomicInteger();
        final AtomicInteger target = new AtomicInteger();
        final Counter warm;
        final Counter cold;
        final List<Meter> meters = new ArrayList<>();

        Pool(MeterRegistry registry, String namespace, String environment) {
            Tags tags = Tags.of("namespace", namespace, "environment", environment);
            for (var state : List.of(Map.entry("ready", ready), Map.entry("starting", starting), Map.entry("claimed", claimed))) {
                meters.add(Gauge.builder(PODS, state.getValue(), AtomicInteger::get).tags(tags).tag("state", state.getKey())
                        .description("Pods of the environment's warm pool by state (ready and starting are unclaimed)")
                        .register(registry));
            }
            meters.add(Gauge.builder(TARGET, target, AtomicInteger::get).tags(tags)
                    .description("Unclaimed pods the pool aims for: the last minute's claims between min and max").register(registry));
            warm = Counter.builder(CLAIMS).tags(tags).tag("result", "warm")
                    .description("Rollouts that fitted the pool, by whether they took a pool pod or started cold").register(registry);
            cold = Counter.builder(CLAIMS).tags(tags).tag("result", "cold")
                    .description("Rollouts that fitted the pool, by whether they took a pool pod or started cold").register(registry);
            meters.add(warm);
            meters.add(cold);
        }
    }
}
