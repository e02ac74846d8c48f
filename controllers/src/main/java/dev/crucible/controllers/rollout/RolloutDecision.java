package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import java.time.Duration;
import java.util.List;

/**
 * What the state machine decided for one reconcile: the phase with a reason a person can act on, and
 * the actions that get the cluster there. Built through the named factories below (one per kind of
 * decision), so no caller writes the eleven fields by position.
 *
 * @param create       members whose pods must be created now
 * @param gateNew      create them with the gang scheduling gate
 * @param ungate       pods whose gang scheduling gate is removed now (the whole gang exists)
 * @param stopPods     delete the rollout's pods that are still running (terminal phase, gang timeout)
 * @param podsComplete every planned pod exists (first time: create→pods latency)
 * @param result       the verifier's result, once it is known
 * @param requeueAfter when to look again without an event (deadline, gang timeout), or null
 */
public record RolloutDecision(PhaseName phase, String reason, String message,
                              List<MemberPlan> create, boolean gateNew, List<String> ungate, boolean stopPods,
                              boolean podsComplete, List<RolloutMember> members, VerifierResult result,
                              Duration requeueAfter) {

    /** A phase and reason, no action: look again after {@code requeue} (null: on the next event). */
    public static RolloutDecision waiting(PhaseName phase, String reason, String message, List<RolloutMember> members,
                                          Duration requeue) {
        return new RolloutDecision(phase, reason, message, List.of(), false, List.of(), false, false, members, null, requeue);
    }

    /** Create the pods of {@code missing} (with the gang's scheduling gate when {@code gated}); every planned pod then exists. */
    public static RolloutDecision createPods(String reason, String message, List<MemberPlan> missing, boolean gated,
                                             List<RolloutMember> members, Duration requeue) {
        return new RolloutDecision(PhaseName.Pending, reason, message, missing, gated, List.of(), false, true, members, null, requeue);
    }

    /** Release a gang: remove the scheduling gate from these pods together. */
    public static RolloutDecision release(String reason, String message, List<String> ungate, List<RolloutMember> members,
                                          Duration requeue) {
        return new RolloutDecision(PhaseName.Pending, reason, message, List.of(), false, ungate, false, false, members, null, requeue);
    }

    /** A terminal phase (or one kept): stop the pods that still run when {@code stopPods}; the verifier's result, if any. */
    public static RolloutDecision end(PhaseName phase, String reason, String message, boolean stopPods, List<RolloutMember> members,
                                      VerifierResult result) {
        return new RolloutDecision(phase, reason, message, List.of(), false, List.of(), stopPods, false, members, result, null);
    }

    /** This decision's phase and reason with no action taken yet (a hack snapshot first): asked again after {@code after}. */
    public RolloutDecision held(Duration after) {
        return new RolloutDecision(phase, reason, message, List.of(), false, List.of(), false, podsComplete, members, result, after);
    }

    /** The same decision, said differently (what a hack response did). */
    public RolloutDecision withMessage(String newMessage) {
        return new RolloutDecision(phase, reason, newMessage, create, gateNew, ungate, stopPods, podsComplete, members, result, requeueAfter);
    }
}
