package dev.crucible.controllers.metrics;

import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Work queue depth for a plain JOSDK operator: resources that received an event and wait for their
 * reconcile. (Under Quarkus the operator SDK's Micrometer binding reports
 * {@code operator.sdk.reconciliations.queue.size} itself.)
 */
public final class QueueDepthMetrics implements Metrics {

    private final Set<ResourceID> waiting = ConcurrentHashMap.newKeySet();

    public QueueDepthMetrics(MeterRegistry registry) {
        Gauge.builder("crucible.reconcile.queue.depth", waiting, Set::size)
                .description("Resources with an event waiting for a reconcile").register(registry);
    }

    @Override
    public void receivedEvent(Event event, Map<String, Object> metadata) {
        waiting.add(event.getRelatedCustomResourceID());
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
