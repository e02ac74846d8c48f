package dev.crucible.controllers.snapshot;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.api.v1alpha1.rollout.RolloutTimings;
import dev.crucible.api.v1alpha1.rollout.SnapshotPolicySpec;
import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotStatus;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotScheduleTest {

    static final Instant RUNNING = Instant.parse("2026-11-22T10:00:00Z");

    static Rollout rollout(Integer interval, Integer keep, PhaseName phase) {
        Rollout r = new Rollout();
        r.setMetadata(new ObjectMetaBuilder().withName("r").withNamespace("ns").build());
        r.setSpec(new RolloutSpec());
        if (interval != null) {
            r.getSpec().snapshotPolicy = new SnapshotPolicySpec();
            r.getSpec().snapshotPolicy.intervalSeconds = interval;
            r.getSpec().snapshotPolicy.keep = keep;
        }
        r.setStatus(new RolloutStatus());
        r.getStatus().phase = phase;
        r.getStatus().timings = new RolloutTimings();
        r.getStatus().timings.runningAt = RUNNING.toString();
        return r;
    }

    static RolloutSnapshot periodic(Rollout r, long k, SnapshotPhase phase) {
        RolloutSnapshot s = SnapshotSchedule.periodicSnapshot(r, r.getSpec().snapshotPolicy, k);
        if (phase != null) {
            s.setStatus(new RolloutSnapshotStatus());
            s.getStatus().phase = phase;
            s.getStatus().consistentAt = RUNNING.plusSeconds(60 * k).toString();
        }
        return s;
    }

    @Test
    void noPolicyNoSnapshots() {
        var plan = SnapshotSchedule.plan(rollout(null, null, PhaseName.Running), List.of(), RUNNING.plusSeconds(3600));
        assertThat(plan.create()).isNull();
        assertThat(plan.delete()).isEmpty();
        assertThat(plan.next()).isNull();
    }

    @Test
    void theDueSlotIsCreatedOnceAndTheNextIsScheduled() {
        Rollout r = rollout(60, 3, PhaseName.Running);
        var early = SnapshotSchedule.plan(r, List.of(), RUNNING.plusSeconds(20));
        assertThat(early.create()).isNull();
        assertThat(early.next()).isEqualTo(Duration.ofSeconds(40));

        var due = SnapshotSchedule.plan(r, List.of(), RUNNING.plusSeconds(130));
        assertThat(due.create().getMetadata().getName()).isEqualTo("r-p2");
        assertThat(due.create().getSpec().rolloutRef.name).isEqualTo("r");
        assertThat(due.create().getSpec().leaveRunning).isTrue();
        assertThat(due.next()).isEqualTo(Duration.ofSeconds(50));

        var again = SnapshotSchedule.plan(r, List.of(periodic(r, 2, null)), RUNNING.plusSeconds(131));
        assertThat(again.create()).as("a restarted operator does not repeat slot 2").isNull();
    }

    @Test
    void onlyARunningRolloutIsSnapshotted() {
        Rollout r = rollout(60, 3, PhaseName.Verifying);
        assertThat(SnapshotSchedule.plan(r, List.of(), RUNNING.plusSeconds(600)).create()).isNull();
    }

    @Test
    void keepsTheNewestPerOutcomeAndNeverPrunesOneInProgress() {
        Rollout r = rollout(60, 2, PhaseName.Running);
        List<RolloutSnapshot> existing = new ArrayList<>(List.of(
                periodic(r, 1, SnapshotPhase.Ready), periodic(r, 2, SnapshotPhase.Failed), periodic(r, 3, SnapshotPhase.Ready),
                periodic(r, 4, SnapshotPhase.Ready), periodic(r, 5, SnapshotPhase.Preparing)));
        var plan = SnapshotSchedule.plan(r, existing, RUNNING.plusSeconds(330));
        assertThat(plan.delete()).containsExactly("r-p1");
        assertThat(plan.create()).isNull();
        assertThat(SnapshotSchedule.lastReady(existing)).isEqualTo("r-p4");
    }
}
