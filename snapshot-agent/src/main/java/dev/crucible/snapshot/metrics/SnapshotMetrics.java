package dev.crucible.snapshot.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** The agent's Prometheus metrics: bytes written, freeze window, phase durations, outcomes. */
public final class SnapshotMetrics {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicInteger frozen = new AtomicInteger();

    public SnapshotMetrics() {
        registry.gauge("crucible_snapshot_frozen_trees", frozen);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public String scrape() {
        return registry.scrape();
    }

    public void frozenDelta(int delta) {
        frozen.addAndGet(delta);
    }

    /** Time the target was frozen, from freeze to thaw (the interruption the workload sees). */
    public void freezeWindow(Duration d) {
        Timer.builder("crucible_snapshot_freeze_window").description("time a target stayed frozen")
                .publishPercentileHistogram().register(registry).record(d);
    }

    /** Duration of one phase: pre_dump, dump, workspace, gpu_suspend, gpu_resume, restore, checksum. */
    public void phase(String phase, Duration d) {
        Timer.builder("crucible_snapshot_phase_duration").tag("phase", phase).register(registry).record(d);
    }

    public void bytes(String kind, long bytes) {
        Counter.builder("crucible_snapshot_written_bytes").baseUnit("bytes").tag("kind", kind).register(registry)
                .increment(bytes);
        DistributionSummary.builder("crucible_snapshot_size").baseUnit("bytes").tag("kind", kind).register(registry)
                .record(bytes);
    }

    public void outcome(String operation, String result) {
        Counter.builder("crucible_snapshot_operations").tag("operation", operation).tag("result", result)
                .register(registry).increment();
    }
}
