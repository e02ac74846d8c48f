package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.PhaseName;
import java.time.Duration;
import java.time.Instant;

/**
 * One status write per transition a person sees: right after a single pod is created, the scheduler
 * binds it and the kubelet starts it, usually within a second, and each step is a pod event. A status
 * change between Pending and Initializing within {@link #WINDOW} of the pods' creation is therefore not
 * written; the reconcile comes back when the window ends, and a Running (or terminal) status is written
 * at once. So a single-pod Rollout that starts quickly costs two status writes (Pending, Running).
 */
final class StartupStatusHold {
    static final Duration WINDOW = Duration.ofSeconds(1);

    private StartupStatusHold() {
    }

    /** How long to hold {@code next} back instead of writing it, or null to write it now. */
    static Duration holdBack(RolloutStatus old, RolloutStatus next, int pods, Instant now) {
        if (pods != 1 || old == null || old.timings == null || old.timings.podsCreatedAt == null
                || !starting(old.phase) || !starting(next.phase)) {
            return null;
        }
        Duration left = Duration.between(now, Instant.parse(old.timings.podsCreatedAt).plus(WINDOW));
        return left.isNegative() || left.isZero() ? null : left;
    }

    private static boolean starting(PhaseName phase) {
        return phase == PhaseName.Pending || phase == PhaseName.Initializing;
    }
}
