package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.api.v1alpha1.common.HackFinding;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.api.v1alpha1.rollout.RolloutTimings;
import dev.crucible.contract.FindingSeverity;
import dev.crucible.controllers.status.Conditions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The status a decision leads to (pure). Timings are set once, when their moment is first observed;
 * conditions keep their transition times while their status holds.
 */
public final class RolloutStatusBuilder {

    private RolloutStatusBuilder() {
    }

    public static RolloutStatus build(Rollout rollout, RolloutDecision d, Instant now) {
        return build(rollout, d, now, RolloutStateMachine.createdAt(rollout, now));
    }

    /** @param origin when the Rollout was first seen (the timings count from it) */
    public static RolloutStatus build(Rollout rollout, RolloutDecision d, Instant now, Instant origin) {
        return build(rollout, d, now, origin, null);
    }

    /**
     * @param origin      when the Rollout was first seen (the timings count from it)
     * @param podsCreated when this operator created the pods, if no status written yet says so (else null)
     */
    public static RolloutStatus build(Rollout rollout, RolloutDecision d, Instant now, Instant origin, Instant podsCreated) {
        RolloutStatus old = rollout.getStatus();
        RolloutStatus s = new RolloutStatus();
        if (old != null) {
            s.reward = old.reward;
            s.testReward = old.testReward;
            s.verdict = old.verdict;
            s.integrity = old.integrity;
            s.tests = old.tests;
            s.verifierReport = old.verifierReport;
            s.hackFindings = old.hackFindings;
            s.turns = old.turns;
            s.trajectory = old.trajectory;
            s.endpoint = old.endpoint;
            s.restoredFrom = old.restoredFrom;
            s.lastSnapshot = old.lastSnapshot;
            s.conditions = old.conditions == null ? new ArrayList<>() : old.conditions;
        }
        Long generation = rollout.getMetadata().getGeneration();
        s.observedGeneration = generation;
        s.phase = d.phase();
        s.reason = d.reason();
        s.message = d.message();
        s.members = d.phase().isTerminal() ? finalMembers(d.members()) : d.members();
        if (d.result() != null) {
            s.reward = d.result().reward();
            s.testReward = d.result().testReward();
            s.verdict = d.result().verdict();
            s.integrity = d.result().integrity();
            s.tests = d.result().tests();
            s.hackFindings = d.result().hackFindings();
            s.turns = d.result().turns();
            s.trajectory = d.result().trajectory();
            s.verifierReport = d.result().report(); // the sidecar's compact JSON report (at most 4 KiB)
        }
        s.timings = timings(origin, old == null ? null : old.timings, d, now, podsCreated);

        PhaseName p = d.phase();
        boolean ready = p == PhaseName.Running || p == PhaseName.Verifying;
        s.conditions = Conditions.set(s.conditions, ConditionTypes.READY, ready, d.reason(), d.message(), generation, now);
        s.conditions = Conditions.set(s.conditions, ConditionTypes.PROGRESSING, !p.isTerminal(), d.reason(),
                d.message(), generation, now);
        List<HackFinding> counted = s.hackFindings == null ? List.of()
                : s.hackFindings.stream().filter(f -> FindingSeverity.counts(f.severity)).toList(); // info findings never count
        if (!counted.isEmpty()) {
            s.conditions = Conditions.set(s.conditions, ConditionTypes.HACK_DETECTED, true, Reasons.HACK_DETECTED,
                    counted.size() + " finding(s), first by " + counted.get(0).detector, generation, now);
        }
        return s;
    }

    private static RolloutTimings timings(Instant created, RolloutTimings old, RolloutDecision d, Instant now, Instant podsCreated) {
        RolloutTimings t = new RolloutTimings();
        if (old != null) {
            t.podsCreatedAt = old.podsCreatedAt;
            t.startedAt = old.startedAt;
            t.runningAt = old.runningAt;
            t.verifyingAt = old.verifyingAt;
            t.finishedAt = old.finishedAt;
            t.createToPodsMillis = old.createToPodsMillis;
            t.createToRunningMillis = old.createToRunningMillis;
        }
        String stamp = now.toString();
        if ((d.podsComplete() || podsCreated != null) && t.podsCreatedAt == null) {
            Instant at = podsCreated != null ? podsCreated : now;
            t.podsCreatedAt = at.toString();
            t.createToPodsMillis = Math.max(0, Duration.between(created, at).toMillis());
        }
        PhaseName p = d.phase();
        if ((p == PhaseName.Initializing || p == PhaseName.Running || p == PhaseName.Verifying) && t.startedAt == null) {
            t.startedAt = stamp;
        }
        if ((p == PhaseName.Running || p == PhaseName.Verifying) && t.runningAt == null) {
            t.runningAt = stamp;
            t.createToRunningMillis = Math.max(0, Duration.between(created, now).toMillis());
        }
        if (p == PhaseName.Verifying && t.verifyingAt == null) {
            t.verifyingAt = stamp;
        }
        if (p.isTerminal() && t.finishedAt == null) {
            t.finishedAt = stamp;
        }
        return t;
    }

    /**
     * A branch's Restored condition (what was restored, once) and an interactive rollout's endpoint
     * (its leader pod's verifier port while it runs).
     */
    static RolloutStatus withRestoreAndEndpoint(RolloutStatus status, Rollout rollout, RolloutDecision d,
                                                java.util.Map<String, io.fabric8.kubernetes.api.model.Pod> observed,
                                                String restored, int verifierPort, Instant now) {
        if (restored != null) {
            status.restoredFrom = rollout.getSpec().restoreFrom.snapshotName;
            status.conditions = Conditions.set(status.conditions, Reasons.RESTORED, true, Reasons.RESTORED, restored,
                    rollout.getMetadata().getGeneration(), now);
        }
        if (rollout.getSpec().mode == dev.crucible.api.v1alpha1.rollout.RolloutMode.INTERACTIVE && d.members() != null
                && !d.members().isEmpty()) {
            String leaderPod = d.members().get(0).pod; // a claimed pool pod's own name, not the member name it stands for
            var leader = observed.values().stream().filter(p -> leaderPod.equals(p.getMetadata().getName())).findFirst().orElse(null);
            if (leader != null && leader.getStatus() != null && leader.getStatus().getPodIP() != null && !d.phase().isTerminal()) {
                status.endpoint = "http://" + leader.getStatus().getPodIP() + ":" + verifierPort;
            }
        }
        return status;
    }

    /**
     * A terminal Rollout's members show a pod's final phase (Succeeded, Failed) or none: a pod still
     * running when the Rollout ended is deleted by that decision, so its last observed "Running" would
     * stay in the status for good (issue 41, the soak). Copies: the old status's members are compared
     * against, never changed.
     */
    static List<RolloutMember> finalMembers(List<RolloutMember> members) {
        if (members == null) {
            return null;
        }
        List<RolloutMember> out = new ArrayList<>(members.size());
        for (var m : members) {
            var c = new RolloutMember();
            c.role = m.role;
            c.index = m.index;
            c.pod = m.pod;
            c.node = m.node;
            c.gpus = m.gpus;
            c.podPhase = "Succeeded".equals(m.podPhase) || "Failed".equals(m.podPhase) ? m.podPhase : null;
            out.add(c);
        }
        return out;
    }
}
