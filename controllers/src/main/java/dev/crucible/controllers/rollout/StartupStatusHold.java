package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.PhaseName;
import java.time.Duration;
import java.time.Instant;

/**
 * One status write per transition a person sees: right after a single pod is created, the scheduler
 * binds it and the kubelet starts it, usually within a second, and each step is a pod event. A status
 * that is still Pending or Initializing within {@link #WINDOW} of the pod's creation is therefore not
 * written (nor the Pending of the reconcile that created the pod); the reconcile comes back when the
 * window ends, and a Running (or terminal) status is written at once. So a single-pod Rollout that starts
 * quickly costs one status write until Running and one at its end. When the pod was created is the
 * status's timing or, before any status says so, this operator's memory ({@code FirstSight}): a restarted
 * operator that does not know writes at once. A status that records a branch's restore is never held:
 * the next reconcile must see it, or it would restore again into the filled workspace.
 */
final class StartupStatusHold {
    static final Duration WINDOW = Duration.ofSeconds(1);

    private StartupStatusHold() {
    }

    /** How long to hold {@code next} back instead of writing it, or null to write it now. */
    static Duration holdBack(RolloutStatus old, RolloutStatus next, int pods, Instant now) {
        if (next.restoredFrom != null && (old == null || old.restoredFrom == null)) {
            return null; // a branch's restore is done once, because its status says so: written at once
        }
        boolean starting = old == null || old.phase == null || starting(old.phase);
        if (pods != 1 || !starting || !starting(next.phase) || next.timings == null || next.timings.podsCreatedAt == null) {
            return null;
        }
        Duration left = Duration.between(now, Instant.parse(next.timings.podsCreatedAt).plus(WINDOW));
        return left.isNegative() || left.isZero() ? null : left;
    }

    private static boolean starting(PhaseName phase) {
        return phase == PhaseName.Pending || phase == PhaseName.Initializing;
    }
}
