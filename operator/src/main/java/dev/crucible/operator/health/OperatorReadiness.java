package dev.crucible.operator.health;

import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.RegisteredController;
import io.javaoperatorsdk.operator.health.EventSourceHealthIndicator;
import io.javaoperatorsdk.operator.health.InformerHealthIndicator;
import io.javaoperatorsdk.operator.health.InformerWrappingEventSourceHealthIndicator;
import io.javaoperatorsdk.operator.health.Status;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * The operator's readiness, in place of the SDK's own check (disabled in application.properties),
 * which turns readiness down the moment any watch is unhealthy: with {@link WatchReadiness}'s grace
 * a reconnecting informer no longer makes the pod flap out of its Service.
 */
@Readiness
@ApplicationScoped
public class OperatorReadiness implements HealthCheck {

    static final String NAME = "crucible-operator-watches";
    private static final Logger LOG = Logger.getLogger(OperatorReadiness.class);

    @Inject
    Operator operator;

    @ConfigProperty(name = "crucible.readiness.watch-grace", defaultValue = "30s")
    Duration grace;

    private WatchReadiness readiness;

    @Override
    public HealthCheckResponse call() {
        if (!operator.getRuntimeInfo().isStarted()) {
            return HealthCheckResponse.named(NAME).down().withData("operator", "not started").build();
        }
        WatchReadiness.Verdict v = readiness().observe(unhealthyWatches(operator), Instant.now());
        v.warnings().forEach(LOG::warn);
        HealthCheckResponseBuilder b = HealthCheckResponse.named(NAME).status(v.ready());
        v.down().forEach(b::withData);
        return b.build();
    }

    private synchronized WatchReadiness readiness() {
        if (readiness == null) {
            readiness = new WatchReadiness(grace);
        }
        return readiness;
    }

    /** Each unhealthy event source as "controller/source" → which informer, per namespace, is not watching, synced or running. */
    static Map<String, String> unhealthyWatches(Operator operator) {
        Map<String, String> out = new TreeMap<>();
        for (RegisteredController<?> c : operator.getRuntimeInfo().getRegisteredControllers()) {
            String controller = c.getConfiguration().getName();
            for (Map.Entry<String, EventSourceHealthIndicator> e : c.getControllerHealthInfo().unhealthyEventSources().entrySet()) {
                out.put(controller + "/" + e.getKey(), cause(e.getValue()));
            }
        }
        return out;
    }

    private static String cause(EventSourceHealthIndicator indicator) {
        if (!(indicator instanceof InformerWrappingEventSourceHealthIndicator<?> informers)) {
            return "status " + indicator.getStatus();
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, InformerHealthIndicator> i : informers.informerHealthIndicators().entrySet()) {
            InformerHealthIndicator h = i.getValue();
            if (h.getStatus() != Status.HEALTHY) {
                sb.append(sb.isEmpty() ? "" : "; ").append("namespace ").append(i.getKey().isEmpty() ? "(all)" : i.getKey())
                        .append(": running=").append(h.isRunning()).append(" watching=").append(h.isWatching())
                        .append(" synced=").append(h.hasSynced());
            }
        }
        return sb.isEmpty() ? "status " + indicator.getStatus() : sb.toString();
    }
}
