package dev.crucible.controllers.metrics;

import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.processing.event.source.controller.ResourceAction;
import io.javaoperatorsdk.operator.processing.event.source.controller.ResourceEvent;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The SDK's callbacks as bounded metrics, in place of the SDK's own Micrometer binding (whose meters
 * carry a {@code name}/{@code namespace} tag per resource: ~75 series per Rollout, never removed):
 * work queue depth (resources with an event waiting for their reconcile) and failed reconciliations per
 * controller. It also records each Rollout's first sighting ({@link FirstSight}) at its ADDED event.
 */
public final class QueueDepthMetrics implements Metrics {

    /** RolloutReconciler.NAME (not imported: metrics must not depend on the reconcilers). */
    private static final String ROLLOUT = "rollout";

    private final Set<ResourceID> waiting = ConcurrentHashMap.newKeySet();
    private final MeterRegistry registry;
    private final FirstSight firstSight;

    public QueueDepthMetrics(MeterRegistry registry) {
        this(registry, null);
    }

    /** @param firstSight where Rollouts' first sightings go (null: not recorded) */
    public QueueDepthMetrics(MeterRegistry registry, FirstSight firstSight) {
        this.registry = registry;
        this.firstSight = firstSight;
        Gauge.builder("crucible.reconcile.queue.depth", waiting, Set::size)
                .description("Resources with an event waiting for a reconcile").register(registry);
    }

    @Override
    public void receivedEvent(Event event, Map<String, Object> metadata) {
        ResourceID id = event.getRelatedCustomResourceID();
        waiting.add(id);
        if (firstSight != null && event instanceof ResourceEvent re && re.getAction() == ResourceAction.ADDED
                && ROLLOUT.equals(metadata.get(Constants.CONTROLLER_NAME))) {
            firstSight.added(id.getNamespace().orElse("") + "/" + id.getName(), Instant.now());
        }
    }

    @Override
    public void failedReconciliation(HasMetadata resource, Exception exception, Map<String, Object> metadata) {
        Object controller = metadata.get(Constants.CONTROLLER_NAME);
        registry.counter("crucible.reconcile.failures", "controller", controller == null ? "" : controller.toString()).increment();
    }

    @Override
    public void reconcileCustomResource(HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
        waiting.remove(ResourceID.fromResource(resource));
    }

    @Override
    public void cleanupDoneFor(ResourceID resourceID, Map<String, Object> metadata) {
        waiting.remove(resourceID);
    }

    public int depth() {
        return waiting.size();
    }
}
