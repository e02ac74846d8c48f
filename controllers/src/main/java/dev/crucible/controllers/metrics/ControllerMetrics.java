package dev.crucible.controllers.metrics;

import dev.crucible.contract.PhaseName;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Crucible's own metrics (Micrometer; Prometheus in the operator): reconcile durations per controller,
 * rollouts by phase, and the two latencies users feel: create → pods and create → running.
 */
public final class ControllerMetrics {

    private final MeterRegistry registry;
    private final Map<String, PhaseName> phaseByRollout = new ConcurrentHashMap<>();
    private final Map<PhaseName, AtomicLong> byPhase = new EnumMap<>(PhaseName.class);
    private final DistributionSummary createToPods;
    private final DistributionSummary createToRunning;
    private final FirstSight firstSight = new FirstSight();
    private final WarmPoolMetrics warmPools;

    public ControllerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.warmPools = new WarmPoolMetrics(registry);
        for (PhaseName p : PhaseName.values()) {
            AtomicLong count = new AtomicLong();
            byPhase.put(p, count);
            Gauge.builder("crucible.rollouts", count, AtomicLong::get)
                    .description("Rollouts by phase").tag("phase", p.name()).register(registry);
        }
        createToPods = latency("crucible.rollout.create.to.pods", "Rollout created until all its pods were created");
        createToRunning = latency("crucible.rollout.create.to.running", "Rollout created until all its pods ran");
    }

    private DistributionSummary latency(String name, String description) {
        // Fixed buckets, fine around the 50 ms target: aggregatable across replicas, ~20 series each.
        return DistributionSummary.builder(name).baseUnit("milliseconds").description(description)
                .serviceLevelObjectives(5, 10, 20, 30, 40, 50, 60, 75, 100, 150, 200, 300, 500, 1000, 2000, 5000,
                        10000, 30000, 60000, 300000)
                .register(registry);
    }

    /**
     * One finished RolloutSnapshot: its outcome (ready / failed, with the reason) and, when Ready, how
     * long the rollout was frozen and how many bytes the images and workspaces took.
     */
    public void snapshot(String outcome, String reason, Long freezeWindowMillis, Long bytes) {
        registry.counter("crucible.snapshots", "outcome", outcome, "reason", reason == null ? "" : reason).increment();
        if (freezeWindowMillis != null) {
            DistributionSummary.builder("crucible.snapshot.freeze.window").baseUnit("milliseconds")
                    .description("How long every member of a rollout stayed frozen for one snapshot")
                    .publishPercentiles(0.5, 0.99).serviceLevelObjectives(100, 500, 1000, 5000, 30000)
                    .register(registry).record(freezeWindowMillis);
        }
        if (bytes != null) {
            DistributionSummary.builder("crucible.snapshot.size").baseUnit("bytes")
                    .description("Images plus workspace archives of one snapshot, all members")
                    .register(registry).record(bytes);
        }
    }

    /** Runs one reconcile and records its duration, tagged with whether it returned or threw. */
    public <T> T timeReconcile(String controller, java.util.function.Supplier<T> reconcile) {
        Timer.Sample sample = startReconcile();
        boolean ok = false;
        try {
            T result = reconcile.get();
            ok = true;
            return result;
        } finally {
            endReconcile(sample, controller, ok);
        }
    }

    public Timer.Sample startReconcile() {
        return Timer.start(registry);
    }

    public void endReconcile(Timer.Sample sample, String controller, boolean ok) {
        sample.stop(Timer.builder("crucible.reconcile.duration").description("Time spent in one reconcile")
                .tag("controller", controller).tag("result", ok ? "success" : "error")
                .publishPercentiles(0.5, 0.99).register(registry));
    }

    /** Records the phase of one rollout (key: namespace/name); null removes it (deleted). */
    public void phase(String rollout, PhaseName phase) {
        PhaseName previous = phase == null ? phaseByRollout.remove(rollout) : phaseByRollout.put(rollout, phase);
        if (previous == phase) {
            return;
        }
        if (previous != null) {
            byPhase.get(previous).decrementAndGet();
        }
        if (phase != null) {
            byPhase.get(phase).incrementAndGet();
        }
    }

    public void createToPods(long millis) {
        createToPods.record(millis);
    }

    public void createToRunning(long millis) {
        createToRunning.record(millis);
    }

    /** The warm pools' meters (issue 39). */
    public WarmPoolMetrics warmPools() {
        return warmPools;
    }

    public FirstSight firstSight() {
        return firstSight;
    }

    public long rolloutsIn(PhaseName phase) {
        return byPhase.get(phase).get();
    }

    public DistributionSummary createToPodsSummary() {
        return createToPods;
    }

    public MeterRegistry registry() {
        return registry;
    }

    static Duration millis(long ms) {
        return Duration.ofMillis(ms);
    }
}
