package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.rollout.RolloutPhase;
import java.time.Duration;
import java.util.List;

/**
 * What the state machine decided for one reconcile: the phase with a reason a person can act on, and
 * the actions that get the cluster there.
 *
 * @param create       members whose pods must be created now
 * @param gateNew      create them with the gang scheduling gate
 * @param ungate       pods whose gang scheduling gate is removed now (the whole gang exists)
 * @param stopPods     delete the rollout's pods that are still running (terminal phase, gang timeout)
 * @param podsComplete every planned pod exists (first time: create→pods latency)
 * @param result       the verifier's result, once it is known
 * @param requeueAfter when to look again without an event (deadline, gang timeout), or null
 */
public record RolloutDecision(RolloutPhase phase, String reason, String message,
                              List<MemberPlan> create, boolean gateNew, List<String> ungate, boolean stopPods,
                              boolean podsComplete, List<RolloutMember> members, VerifierResult result,
                              Duration requeueAfter) {
}
