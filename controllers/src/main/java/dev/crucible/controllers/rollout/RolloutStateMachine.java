package dev.crucible.controllers.rollout;

import dev.crucible.contract.SpecDefaults;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.OutcomeFacts;
import dev.crucible.controllers.capacity.GangFit;
import dev.crucible.contract.OutcomeReasons;
import dev.crucible.contract.TerminalOutcome;
import dev.crucible.contract.Verdict;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Rollout lifecycle as a pure function of observed state: Pending → Initializing → Running →
 * Verifying → Succeeded / Failed / Hacked / TimedOut. Nothing is remembered between reconciles except
 * what status and the pods themselves say, so a restarted operator decides exactly as before.
 */
public final class RolloutStateMachine {

    /**
     * How long past the deadline the operator waits for a verifier container that is still running: it grades
     * what the agent left and reports its findings. Under the kubelet's own limit (DEADLINE_GRACE_SECONDS).
     */
    static final Duration VERIFIER_GRACE = Duration.ofSeconds(45);

    private static final Duration ENVIRONMENT_RETRY = Duration.ofSeconds(30);
    /** How often a gang held back for capacity looks again (pods leaving a node raise no event here). */
    private static final Duration GANG_RECHECK = Duration.ofSeconds(5);

    private RolloutStateMachine() {
    }

    /**
     * @param environmentValid false when the environment's Valid condition is False (null: unknown)
     * @param pods             the rollout's pods by name, as observed
     */
    public static RolloutDecision decide(Rollout rollout, RLEnvironment environment, Boolean environmentValid,
                                         Map<String, Pod> pods, Instant now) {
        return decide(rollout, environment, environmentValid, pods, now, null);
    }

    /**
     * @param fit whether the gang, all created and gated, fits the nodes now, or whether a single pod the
     *            scheduler called unschedulable could ever fit ({@link GangFit}); null: not checked (no node
     *            view), and the gang is released as soon as it exists
     */
    public static RolloutDecision decide(Rollout rollout, RLEnvironment environment, Boolean environmentValid,
                                         Map<String, Pod> pods, Instant now, GangFit.Result fit) {
        return decide(rollout, environment, environmentValid, pods, now, fit, null, false);
    }

    /**
     * The whole decision ({@link #decide(Observed)}), from its parts:
     * @param restore             the restore gate of {@code spec.restoreFrom} (null: no restore): a restore that
     *                            cannot be done fails the rollout, one not ready yet holds it Pending
     * @param hackSnapshotPending a Hacked rollout's {@code onHack: snapshot} is still being taken: its pods wait
     */
    public static RolloutDecision decide(Rollout rollout, RLEnvironment environment, Boolean environmentValid,
                                         Map<String, Pod> pods, Instant now, GangFit.Result fit, RestoreGate.Result restore,
                                         boolean hackSnapshotPending) {
        return decide(new Observed(rollout, environment, environmentValid, pods, fit, restore, hackSnapshotPending, now));
    }

    /** The decision for one observation, final (the reconciler only carries it out). */
    public static RolloutDecision decide(Observed o) {
        RolloutDecision d = observe(o.rollout(), o.environment(), o.environmentValid(), o.pods(), o.now(), o.fit(), o.lostNodes());
        if (o.restore() != null && !d.phase().isTerminal()) {
            d = RestoreGate.apply(d, o.restore(), o.rollout().getStatus(), o.pods());
        }
        if (d.phase() == PhaseName.Hacked && o.hackSnapshotPending()) {
            d = d.held(Duration.ofSeconds(2));
        }
        return d;
    }

    private static RolloutDecision observe(Rollout rollout, RLEnvironment environment, Boolean environmentValid,
                                           Map<String, Pod> pods, Instant now, GangFit.Result fit, java.util.Set<String> lostNodes) {
        RolloutStatus status = rollout.getStatus();
        PhaseName current = status == null ? null : status.phase;
        if (current != null && current.isTerminal()) {
            // Terminal is final; only make sure nothing is left running.
            boolean running = pods.values().stream().anyMatch(RolloutStateMachine::stillRunning);
            return RolloutDecision.end(current, status.reason, status.message, running, status.members, null);
        }
        Instant created = createdAt(rollout, now);
        Instant deadline = created.plusSeconds(RolloutPodBuilder.maxDurationSeconds(rollout));
        if (!now.isBefore(deadline)) {
            // a result the verifier already wrote still counts: a finding in it outranks the deadline (the contract's order)
            for (Pod p : pods.values()) {
                ContainerStateTerminated done = terminated(p, RolloutLabels.VERIFIER_CONTAINER);
                VerifierResult.Parsed parsed = done == null ? null : VerifierResult.parse(done.getMessage());
                if (parsed != null && parsed.ok()) {
                    // seen late (an operator that was down) but written in time, it did not run past the deadline
                    return fromResult(rollout, parsed.result(), endedAtOrAfter(done, deadline), terminated(p, RolloutLabels.AGENT_CONTAINER),
                            status == null ? null : status.members);
                }
            }
            // The sidecar ends its episode at this same deadline (CRUCIBLE_DEADLINE_AT) and writes its result, with the
            // live findings that make the run Hacked rather than TimedOut: wait a moment for it while it still runs.
            Instant graceEnd = deadline.plus(VERIFIER_GRACE);
            if (now.isBefore(graceEnd) && pods.values().stream().anyMatch(RolloutStateMachine::verifierStillRunning)) {
                return waiting(current == null ? PhaseName.Running : current, Reasons.VERIFIER_FINISHING,
                        "the deadline passed; waiting up to " + VERIFIER_GRACE.toSeconds() + " s for the verifier's result",
                        status, min(Duration.ofSeconds(2), Duration.between(now, graceEnd)));
            }
            TerminalOutcome o = TerminalOutcome.of(OutcomeFacts.none().withTimedOut(true, RolloutPodBuilder.maxDurationSeconds(rollout)));
            return terminal(PhaseName.TimedOut, o.reason(), o.message() + "; raise it or make the agent faster", status, true);
        }
        Duration untilDeadline = Duration.between(now, deadline);
        String envName = rollout.getSpec().environmentRef == null ? null : rollout.getSpec().environmentRef.name;
        if (environment == null) {
            return waiting(PhaseName.Pending, Reasons.ENVIRONMENT_NOT_FOUND, "RLEnvironment " + envName
                    + " does not exist in namespace " + rollout.getMetadata().getNamespace() + "; create it or fix spec.environmentRef.name",
                    status, min(ENVIRONMENT_RETRY, untilDeadline));
        }
        if (Boolean.FALSE.equals(environmentValid)) {
            return waiting(PhaseName.Pending, Reasons.ENVIRONMENT_INVALID, "RLEnvironment " + envName
                    + " is invalid; see its Valid condition", status, min(ENVIRONMENT_RETRY, untilDeadline));
        }

        String name = rollout.getMetadata().getName();
        List<MemberPlan> plan = TopologyPlanner.plan(environment.getSpec());
        boolean gang = TopologyPlanner.isGang(plan);
        List<MemberPlan> missing = new ArrayList<>();
        for (MemberPlan m : plan) {
            if (!pods.containsKey(m.podName(name))) {
                missing.add(m);
            }
        }
        List<RolloutMember> members = members(name, plan, pods);

        if (!missing.isEmpty()) {
            if (current == PhaseName.Running || current == PhaseName.Verifying) {
                // A started member cannot be replaced without losing the agent's state: end, do not patch over.
                String nodeLost = NodeLoss.missing(name, missing, status, lostNodes);
                return nodeLost != null ? terminal(PhaseName.Failed, Reasons.NODE_LOST, nodeLost, status, true, members)
                        : terminal(PhaseName.Failed, Reasons.MEMBER_LOST, "pod " + missing.get(0).podName(name)
                        + " disappeared while the rollout was running (evicted or deleted)", status, true, members);
            }
            return RolloutDecision.createPods(Reasons.CREATING_PODS, "creating " + missing.size() + " of " + plan.size() + " pods",
                    missing, gang, members, untilDeadline);
        }

        List<String> gated = new ArrayList<>();
        for (Pod p : pods.values()) {
            if (p.getSpec().getSchedulingGates() != null && !p.getSpec().getSchedulingGates().isEmpty()) {
                gated.add(p.getMetadata().getName());
            }
        }
        if (!gated.isEmpty() && fit != null && fit.verdict() == GangFit.Verdict.NEVER) {
            return terminal(PhaseName.Failed, Reasons.GANG_CANNOT_FIT, fit.message()
                    + "; no member was bound. Lower the request or add nodes that can hold it", status, true, members);
        }
        if (!gated.isEmpty() && fit != null && fit.verdict() == GangFit.Verdict.WAIT) {
            // Held back whole: nothing binds (and holds GPUs) until every member has a node.
            Instant gangDeadline = podsCreatedAt(status, created).plusSeconds(TopologyPlanner.gangTimeoutSeconds(environment.getSpec()));
            if (!now.isBefore(gangDeadline)) {
                return terminal(PhaseName.Failed, Reasons.GANG_TIMEOUT, "the gang of " + plan.size()
                        + " did not fit the nodes within topology.gangTimeoutSeconds (" + TopologyPlanner.gangTimeoutSeconds(environment.getSpec())
                        + "s; " + fit.message() + "); no member was bound, all were removed. Free capacity or lower the request",
                        status, true, members);
            }
            return RolloutDecision.waiting(PhaseName.Pending, Reasons.GANG_WAITING, fit.message(), members,
                    min(GANG_RECHECK, Duration.between(now, gangDeadline)));
        }
        if (!gated.isEmpty()) {
            // Every member exists: release them together so the scheduler sees the whole gang at once.
            return RolloutDecision.release(Reasons.GANG_RELEASED, "all " + plan.size()
                    + " members created; released for scheduling together", gated, members, untilDeadline);
        }

        Pod leader = pods.get(plan.get(0).podName(name));
        ContainerStateTerminated verifierDone = terminated(leader, RolloutLabels.VERIFIER_CONTAINER);
        if (verifierDone != null) {
            VerifierResult.Parsed parsed = VerifierResult.parse(verifierDone.getMessage());
            if (!parsed.ok()) {
                return terminal(PhaseName.Failed, Reasons.VERIFIER_RESULT_INVALID, parsed.error()
                        + " (exit code " + verifierDone.getExitCode() + ")", status, true, members);
            }
            return fromResult(rollout, parsed.result(), false, terminated(leader, RolloutLabels.AGENT_CONTAINER), members);
        }

        String nodeLost = NodeLoss.marked(pods.values()); // before "pod failed": PodGC also sets its phase Failed
        if (nodeLost != null) return terminal(PhaseName.Failed, Reasons.NODE_LOST, nodeLost, status, true, members);
        for (Pod p : pods.values()) {
            if ("Failed".equals(phaseOf(p))) {
                String why = p.getStatus().getReason();
                if ("DeadlineExceeded".equals(why)) {
                    return terminal(PhaseName.TimedOut, Reasons.DEADLINE_EXCEEDED, "pod " + p.getMetadata().getName()
                            + " reached its activeDeadlineSeconds", status, true, members);
                }
                return terminal(PhaseName.Failed, Reasons.POD_FAILED, "pod " + p.getMetadata().getName() + " failed"
                        + (why == null ? "" : ": " + why) + (p.getStatus().getMessage() == null ? "" : " " + p.getStatus().getMessage()),
                        status, true, members);
            }
        }

        long unbound = pods.values().stream().filter(p -> p.getSpec().getNodeName() == null).count();
        if (unbound > 0 && !gang && fit != null && fit.verdict() == GangFit.Verdict.NEVER) {
            return terminal(PhaseName.Failed, Reasons.CANNOT_FIT, fit.message()
                    + "; lower the request or add a node that can hold it", status, true, members);
        }
        if (unbound > 0) {
            Duration wait = untilDeadline;
            if (gang) {
                Instant since = podsCreatedAt(status, created);
                Instant gangDeadline = since.plusSeconds(TopologyPlanner.gangTimeoutSeconds(environment.getSpec()));
                if (!now.isBefore(gangDeadline)) {
                    return terminal(PhaseName.Failed, Reasons.GANG_TIMEOUT, unbound + " of " + plan.size()
                            + " gang members could not be placed within topology.gangTimeoutSeconds ("
                            + TopologyPlanner.gangTimeoutSeconds(environment.getSpec())
                            + "s); all members were removed. Free capacity or lower the GPU request", status, true, members);
                }
                wait = min(wait, Duration.between(now, gangDeadline));
            }
            String unschedulable = unschedulableMessage(pods);
            return RolloutDecision.waiting(PhaseName.Pending, unschedulable != null ? Reasons.UNSCHEDULABLE : Reasons.SCHEDULING,
                    unschedulable != null ? unschedulable : unbound + " of " + plan.size() + " pods waiting for a node", members, wait);
        }

        boolean allRunning = pods.values().stream().allMatch(p -> "Running".equals(phaseOf(p)));
        if (!allRunning) {
            return RolloutDecision.waiting(PhaseName.Initializing, Reasons.STARTING, "workspace set-up and containers starting",
                    members, untilDeadline);
        }
        if (pods.values().stream().anyMatch(WarmPoolClaim::claimNotTaken)) {
            return RolloutDecision.waiting(PhaseName.Initializing, Reasons.STARTING, "claimed a warm pod; its sidecar is taking the claim",
                    members, untilDeadline);
        }
        boolean embedded = rollout.getSpec().mode != RolloutMode.INTERACTIVE;
        if (embedded && terminated(leader, RolloutLabels.AGENT_CONTAINER) != null) {
            return RolloutDecision.waiting(PhaseName.Verifying, Reasons.AGENT_FINISHED, "the agent exited; the verifier is grading",
                    members, untilDeadline);
        }
        return RolloutDecision.waiting(PhaseName.Running, Reasons.RUNNING, "all " + plan.size() + " pods running", members,
                untilDeadline);
    }

    /**
     * The terminal decision for a verifier's result, by the contract's {@link TerminalOutcome#of} (the function
     * the sidecar and the local runtime use): the facts the sidecar decided from (carried in its result), plus what
     * only the operator sees, its own deadline and the kubelet's OOM kill of the agent container. Nothing here orders
     * the facts, and a Crucible sidecar's facts are never read back from its reason strings.
     */
    static RolloutDecision fromResult(Rollout rollout, VerifierResult r, boolean deadlinePassed, ContainerStateTerminated agent,
                                      List<RolloutMember> members) {
        // the kubelet ends a container past its memory limit; locally the sandbox's cgroup says the same (ResourceLimitExceeded)
        boolean oomKilled = agent != null && "OOMKilled".equals(agent.getReason());
        OutcomeFacts f = r.facts() != null ? r.facts().outcomeFacts(r.verdict(), r.countedFindings(), r.message()) : factsOfCustom(r);
        f = f.withTimedOut(f.timedOut() || deadlinePassed, RolloutPodBuilder.maxDurationSeconds(rollout));
        if (oomKilled) f = f.withLimitExceeded(true, "the agent container was OOMKilled: it ran past resources.memory");
        if (agent != null) f = f.withAgentExit(agent.getExitCode());
        TerminalOutcome o = TerminalOutcome.of(f);
        String message = o.phase() == PhaseName.Succeeded && r.message() != null ? r.message() : o.message();
        return RolloutDecision.end(o.phase(), o.reason(), message, true, members, r);
    }

    /**
     * The facts of a verifier that writes none (a custom one): its phase, reason and verdict are all there is, so they
     * are read as the contract names them.
     */
    private static OutcomeFacts factsOfCustom(VerifierResult r) {
        String policy = r.hackFindings() == null || r.hackFindings().isEmpty() || r.hackFindings().get(0).action == null
                ? SpecDefaults.HACK_POLICY_ACTION : r.hackFindings().get(0).action;
        boolean setupFailed = OutcomeReasons.SETUP_FAILED.equals(r.reason());
        boolean limit = OutcomeReasons.RESOURCE_LIMIT_EXCEEDED.equals(r.reason());
        // a verifier that wrote a Failed phase for no other fact (without a verdict) failed to grade
        boolean failedWithoutGrade = r.phase() == PhaseName.Failed && !limit && !setupFailed;
        String verdict = failedWithoutGrade ? Verdict.ERROR.wire() : r.verdict() != null ? r.verdict()
                : r.phase() == PhaseName.Succeeded ? Verdict.PASS.wire() : null;
        return OutcomeFacts.none().withSetupError(setupFailed ? (r.message() == null ? "setup failed" : r.message()) : null)
                .withFindings(r.countedFindings(), policy)
                .withTimedOut(r.phase() == PhaseName.TimedOut, 0)
                .withLimitExceeded(limit, r.message())
                .withGrade(verdict, r.message() != null ? r.message() : "verdict " + r.verdict() + ", reward " + r.reward());
    }

    /** Whether a container ended at or after {@code deadline}; unknown (no finishedAt) counts as after. */
    private static boolean endedAtOrAfter(ContainerStateTerminated done, Instant deadline) {
        try {
            return done.getFinishedAt() == null || !Instant.parse(done.getFinishedAt()).isBefore(deadline);
        } catch (java.time.format.DateTimeParseException e) {
            return true;
        }
    }

    static boolean stillRunning(Pod p) {
        String phase = phaseOf(p);
        return p.getMetadata().getDeletionTimestamp() == null && !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    static List<RolloutMember> members(String rollout, List<MemberPlan> plan, Map<String, Pod> pods) {
        List<RolloutMember> members = new ArrayList<>();
        for (MemberPlan m : plan) {
            RolloutMember rm = new RolloutMember();
            rm.role = m.role();
            rm.index = m.index();
            rm.pod = m.podName(rollout);
            rm.gpus = m.gpus() > 0 ? m.gpus() : null;
            Pod p = pods.get(rm.pod);
            if (p != null) {
                rm.pod = p.getMetadata().getName(); // a claimed pool pod keeps its own name
                rm.node = p.getSpec().getNodeName();
                rm.podPhase = phaseOf(p);
            }
            members.add(rm);
        }
        return members;
    }

    static RolloutDecision waiting(PhaseName phase, String reason, String message, RolloutStatus status,
                                           Duration requeue) {
        return RolloutDecision.waiting(phase, reason, message, status == null ? null : status.members, requeue);
    }

    static RolloutDecision terminal(PhaseName phase, String reason, String message, RolloutStatus status,
                                    boolean stop) {
        return terminal(phase, reason, message, status, stop, status == null ? null : status.members);
    }

    private static RolloutDecision terminal(PhaseName phase, String reason, String message, RolloutStatus status,
                                            boolean stop, List<RolloutMember> members) {
        return RolloutDecision.end(phase, reason, message, stop, members, null);
    }

    /** A pod whose verifier container has not ended (and the pod is not being deleted). */
    static boolean verifierStillRunning(Pod p) {
        ContainerState state = state(p, RolloutLabels.VERIFIER_CONTAINER);
        return stillRunning(p) && state != null && state.getRunning() != null;
    }

    static ContainerStateTerminated terminated(Pod pod, String container) {
        ContainerState state = state(pod, container);
        return state == null ? null : state.getTerminated();
    }

    /** The state of one of the pod's containers, or null when the pod reports none for it. */
    private static ContainerState state(Pod pod, String container) {
        if (pod == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return null;
        }
        for (ContainerStatus cs : pod.getStatus().getContainerStatuses()) {
            if (container.equals(cs.getName())) {
                return cs.getState();
            }
        }
        return null;
    }

    static String phaseOf(Pod p) {
        return p.getStatus() == null ? null : p.getStatus().getPhase();
    }

    private static String unschedulableMessage(Map<String, Pod> pods) {
        for (Pod p : pods.values()) {
            if (p.getStatus() == null || p.getStatus().getConditions() == null) {
                continue;
            }
            for (PodCondition c : p.getStatus().getConditions()) {
                if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason())) {
                    return "pod " + p.getMetadata().getName() + ": " + c.getMessage();
                }
            }
        }
        return null;
    }

    static Instant createdAt(Rollout rollout, Instant fallback) {
        String ts = rollout.getMetadata().getCreationTimestamp();
        return ts == null ? fallback : Instant.parse(ts);
    }

    private static Instant podsCreatedAt(RolloutStatus status, Instant created) {
        if (status != null && status.timings != null && status.timings.podsCreatedAt != null) {
            return Instant.parse(status.timings.podsCreatedAt);
        }
        return created;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
