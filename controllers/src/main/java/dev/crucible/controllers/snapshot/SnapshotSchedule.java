package dev.crucible.controllers.snapshot;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.common.ObjectRef;
import dev.crucible.api.v1alpha1.rollout.SnapshotPolicySpec;
import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotSpec;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.api.v1alpha1.snapshot.SnapshotTrigger;
import dev.crucible.controllers.common.RolloutLabels;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A Rollout's {@code snapshotPolicy} as a pure function of what exists: periodic snapshot k is due
 * k × interval after the rollout started running and is named {@code <rollout>-p<k>}, so a restarted
 * operator neither skips nor repeats one; only the newest {@code keep} periodic snapshots of each
 * outcome (Ready, Failed) stay.
 */
public final class SnapshotSchedule {

    public static final String TRIGGER_LABEL = "crucible.dev/snapshot-trigger";

    /** @param create snapshot to create now (null: none); @param delete names to delete; @param next when to look again */
    public record Plan(RolloutSnapshot create, List<String> delete, Duration next) {
    }

    private SnapshotSchedule() {
    }

    public static Plan plan(Rollout rollout, List<RolloutSnapshot> existing, Instant now) {
        SnapshotPolicySpec policy = rollout.getSpec().snapshotPolicy;
        if (policy == null || policy.intervalSeconds == null) {
            return new Plan(null, List.of(), null);
        }
        String name = rollout.getMetadata().getName();
        List<RolloutSnapshot> periodic = existing.stream().filter(s -> slot(name, s) > 0).toList();
        List<String> delete = prune(name, periodic, policy.keep == null ? 3 : policy.keep);
        PhaseName phase = rollout.getStatus() == null ? null : rollout.getStatus().phase;
        String runningAt = rollout.getStatus() == null || rollout.getStatus().timings == null ? null
                : rollout.getStatus().timings.runningAt;
        if (phase != PhaseName.Running || runningAt == null) {
            return new Plan(null, delete, null);
        }
        long interval = policy.intervalSeconds;
        long elapsed = Duration.between(Instant.parse(runningAt), now).toSeconds();
        long k = elapsed / interval;
        Duration next = Duration.ofSeconds((k + 1) * interval - elapsed);
        if (k < 1 || periodic.stream().anyMatch(s -> slot(name, s) >= k)) {
            return new Plan(null, delete, next);
        }
        return new Plan(periodicSnapshot(rollout, policy, k), delete, next);
    }

    /** The newest Ready snapshot of the rollout, any trigger (what {@code status.lastSnapshot} reports). */
    public static String lastReady(List<RolloutSnapshot> existing) {
        return existing.stream()
                .filter(s -> s.getStatus() != null && s.getStatus().phase == SnapshotPhase.Ready && s.getStatus().consistentAt != null)
                .max(Comparator.comparing(s -> Instant.parse(s.getStatus().consistentAt)))
                .map(s -> s.getMetadata().getName()).orElse(null);
    }

    static RolloutSnapshot periodicSnapshot(Rollout rollout, SnapshotPolicySpec policy, long k) {
        return policySnapshot(rollout, rollout.getMetadata().getName() + "-p" + k, SnapshotTrigger.PERIODIC,
                policy.leaveRunning == null ? Boolean.TRUE : policy.leaveRunning);
    }

    /**
     * A RolloutSnapshot the operator takes for {@code snapshotPolicy} (periodic or on a hack): labelled
     * with the rollout and the trigger, capturing what the policy's {@code include} says.
     */
    public static RolloutSnapshot policySnapshot(Rollout rollout, String snapshotName, SnapshotTrigger trigger,
                                                 Boolean leaveRunning) {
        String name = rollout.getMetadata().getName();
        RolloutSnapshot s = new RolloutSnapshot();
        s.setMetadata(new ObjectMetaBuilder().withName(snapshotName).withNamespace(rollout.getMetadata().getNamespace())
                .withLabels(Map.of(RolloutLabels.ROLLOUT, RolloutLabels.truncate(name),
                        TRIGGER_LABEL, trigger.name().toLowerCase(java.util.Locale.ROOT),
                        RolloutLabels.MANAGED_BY, RolloutLabels.MANAGED_BY_VALUE))
                .build());
        RolloutSnapshotSpec spec = new RolloutSnapshotSpec();
        spec.rolloutRef = new ObjectRef(name);
        spec.include = rollout.getSpec().snapshotPolicy.include;
        spec.leaveRunning = leaveRunning;
        spec.trigger = trigger;
        s.setSpec(spec);
        return s;
    }

    /** Oldest first beyond {@code keep} per outcome; snapshots still in progress are never pruned. */
    private static List<String> prune(String rollout, List<RolloutSnapshot> periodic, int keep) {
        List<String> delete = new ArrayList<>();
        for (SnapshotPhase outcome : List.of(SnapshotPhase.Ready, SnapshotPhase.Failed, SnapshotPhase.Expired)) {
            List<RolloutSnapshot> done = periodic.stream()
                    .filter(s -> s.getStatus() != null && s.getStatus().phase == outcome)
                    .sorted(Comparator.comparingLong((RolloutSnapshot s) -> slot(rollout, s)).reversed())
                    .toList();
            for (int i = keep; i < done.size(); i++) {
                delete.add(done.get(i).getMetadata().getName());
            }
        }
        return delete;
    }

    /** k of {@code <rollout>-p<k>}, or -1 for any other snapshot. */
    static long slot(String rollout, RolloutSnapshot s) {
        String n = s.getMetadata().getName();
        String prefix = rollout + "-p";
        if (!n.startsWith(prefix) || s.getSpec() == null || s.getSpec().trigger != SnapshotTrigger.PERIODIC) {
            return -1;
        }
        try {
            return Long.parseLong(n.substring(prefix.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
