package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.status.EventRecorder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Objects;

/**
 * What a written status transition tells people and dashboards: the latency histograms the first time
 * a timing is known, and an Event for each phase or reason a person acts on (warnings for failures,
 * unschedulable or rejected pods; normal only for a released gang: Running and Succeeded are in the
 * status, and an Event each would be a write per Rollout on the hot path).
 */
final class RolloutTransitions {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RolloutTransitions.class);

    private final ControllerMetrics metrics;
    private final EventRecorder.Lazy events;

    RolloutTransitions(ControllerMetrics metrics, EventRecorder.Lazy events) {
        this.metrics = metrics;
        this.events = events;
    }

    void record(Rollout rollout, RolloutStatus old, RolloutStatus status, RolloutDecision d, KubernetesClient client) {
        if (status.timings != null && status.timings.createToPodsMillis != null
                && (old == null || old.timings == null || old.timings.createToPodsMillis == null)) {
            // No event here: one write per rollout on the hot path, and nothing a person acts on.
            metrics.createToPods(status.timings.createToPodsMillis);
        }
        if (status.timings != null && status.timings.createToRunningMillis != null
                && (old == null || old.timings == null || old.timings.createToRunningMillis == null)) {
            metrics.createToRunning(status.timings.createToRunningMillis);
        }
        PhaseName oldPhase = old == null ? null : old.phase;
        if (oldPhase == d.phase() && Objects.equals(old == null ? null : old.reason, d.reason())) {
            return;
        }
        // A terminal phase is what a person looks for in the log; the steps before it only at debug.
        if (d.phase().isTerminal()) {
            LOG.info("Rollout {}/{}: {} ({}): {}", rollout.getMetadata().getNamespace(), rollout.getMetadata().getName(),
                    d.phase(), d.reason(), d.message());
        } else {
            LOG.debug("Rollout {}/{}: {} → {} ({})", rollout.getMetadata().getNamespace(), rollout.getMetadata().getName(),
                    oldPhase, d.phase(), d.reason());
        }
        switch (d.phase()) {
            // No Normal Event for Running or Succeeded: the status says it, and an Event is a write per Rollout.
            case Failed, Hacked, TimedOut -> events.of(client).warning(rollout, d.reason(), d.message());
            case Pending -> {
                if (Reasons.UNSCHEDULABLE.equals(d.reason()) || Reasons.ENVIRONMENT_NOT_FOUND.equals(d.reason())
                        || Reasons.POD_REJECTED.equals(d.reason())
                        || Reasons.ENVIRONMENT_INVALID.equals(d.reason())) {
                    events.of(client).warning(rollout, d.reason(), d.message());
                } else if (Reasons.GANG_RELEASED.equals(d.reason())) {
                    events.of(client).normal(rollout, d.reason(), d.message());
                }
            }
            default -> {
            }
        }
    }
}
