package dev.crucible.verifier.api;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;

/** Prometheus metrics of one sidecar: steps, grading, rewards, findings and the monitor's own cost. */
public final class SidecarMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicReference<Double> lastReward = new AtomicReference<>(Double.NaN);

    public SidecarMetrics(DoubleSupplier monitorCpuSeconds) {
        Gauge.builder("crucible_last_reward", () -> lastReward.get()).description("reward of the last verify").register(registry);
        Gauge.builder("crucible_monitor_cpu_seconds", monitorCpuSeconds, DoubleSupplier::getAsDouble).description("CPU time used by the hack monitor thread").register(registry);
    }

    public void step(String tool, String outcome, Duration took) {
        Timer.builder("crucible_step_seconds").tag("tool", tool == null ? "none" : tool).tag("outcome", outcome).register(registry).record(took);
    }

    public void verify(String verdict, double reward, Duration took) {
        lastReward.set(reward);
        Timer.builder("crucible_verify_seconds").tag("verdict", verdict).register(registry).record(took);
    }

    public void finding(String detector) {
        Counter.builder("crucible_hack_findings").tag("detector", detector).register(registry).increment();
    }

    public void rejected(String reason) {
        Counter.builder("crucible_requests_rejected").tag("reason", reason).register(registry).increment();
    }

    public String scrape() { return registry.scrape(); }
}
