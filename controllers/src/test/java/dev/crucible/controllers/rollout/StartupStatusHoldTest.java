package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.api.v1alpha1.rollout.RolloutTimings;
import dev.crucible.contract.PhaseName;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class StartupStatusHoldTest {

    private static final Instant CREATED = Instant.parse("2026-11-28T07:00:00.000Z");

    private static RolloutStatus status(PhaseName phase, Instant podsCreated) {
        RolloutStatus s = new RolloutStatus();
        s.phase = phase;
        s.timings = new RolloutTimings();
        s.timings.podsCreatedAt = podsCreated == null ? null : podsCreated.toString();
        return s;
    }

    @Test
    void aSinglePodsStepsBeforeRunningWaitForTheWindow() {
        Instant now = CREATED.plusMillis(200);
        // the reconcile that created the pod (no status yet), then the scheduler's and the kubelet's steps
        assertThat(StartupStatusHold.holdBack(null, status(PhaseName.Pending, CREATED), 1, now)).isEqualTo(Duration.ofMillis(800));
        assertThat(StartupStatusHold.holdBack(status(PhaseName.Pending, CREATED), status(PhaseName.Initializing, CREATED), 1, now))
                .isEqualTo(Duration.ofMillis(800));
    }

    @Test
    void whatIsWrittenAtOnce() {
        Instant now = CREATED.plusMillis(200);
        assertThat(StartupStatusHold.holdBack(null, status(PhaseName.Running, CREATED), 1, now)).as("Running").isNull();
        assertThat(StartupStatusHold.holdBack(null, status(PhaseName.Failed, CREATED), 1, now)).as("an end").isNull();
        assertThat(StartupStatusHold.holdBack(null, status(PhaseName.Pending, CREATED), 2, now)).as("a gang").isNull();
        assertThat(StartupStatusHold.holdBack(null, status(PhaseName.Pending, null), 1, now)).as("no pods (yet, or known)").isNull();
        assertThat(StartupStatusHold.holdBack(null, status(PhaseName.Pending, CREATED), 1, CREATED.plusMillis(1000)))
                .as("after the window").isNull();
        assertThat(StartupStatusHold.holdBack(status(PhaseName.Running, CREATED), status(PhaseName.Initializing, CREATED), 1, now))
                .as("from Running").isNull();
        RolloutStatus restored = status(PhaseName.Initializing, CREATED);
        restored.restoredFrom = "snap-1";
        assertThat(StartupStatusHold.holdBack(status(PhaseName.Initializing, CREATED), restored, 1, now))
                .as("a branch's restore, which must be seen by the next reconcile or it restores twice").isNull();
        assertThat(StartupStatusHold.holdBack(restored, status(PhaseName.Initializing, CREATED), 1, now))
                .as("once written, the window applies again").isEqualTo(Duration.ofMillis(800));
    }
}
