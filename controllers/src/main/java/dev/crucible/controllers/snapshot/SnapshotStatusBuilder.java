package dev.crucible.controllers.snapshot;

import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotStatus;
import dev.crucible.api.v1alpha1.snapshot.SnapshotMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.controllers.status.Conditions;
import dev.crucible.snapshot.client.TwoPhaseSnapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The Ready status out of a finished two-phase snapshot. */
final class SnapshotStatusBuilder {

    private SnapshotStatusBuilder() {
    }

    static RolloutSnapshotStatus ready(RolloutSnapshot snapshot, List<SnapshotMember> planned,
                                       TwoPhaseSnapshot.Result result, Instant now) {
        RolloutSnapshotStatus s = new RolloutSnapshotStatus();
        s.observedGeneration = snapshot.getMetadata().getGeneration();
        s.phase = SnapshotPhase.Ready;
        s.reason = "Ready";
        s.members = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < planned.size(); i++) {
            SnapshotMember m = planned.get(i);
            TwoPhaseSnapshot.MemberResult r = result.members().get(i);
            m.bytes = r.imageBytes() + r.workspaceBytes();
            m.dumpMillis = r.dumpMs();
            m.mode = r.mode();
            m.checkpointImage = r.checkpointImage();
            if (r.gpuProcesses() > 0) {
                m.gpu = true;
            }
            total += m.bytes;
            s.members.add(m);
        }
        s.totalBytes = total;
        s.freezeWindowMillis = result.freezeWindowMs();
        s.consistentAt = Conditions.format(result.consistentAt());
        Integer ttl = snapshot.getSpec().ttlSeconds;
        if (ttl != null) {
            s.expiresAt = Conditions.format(result.consistentAt().plusSeconds(ttl));
        }
        s.message = planned.size() + " member(s), " + (total >> 20) + " MiB, frozen " + result.freezeWindowMs()
                + " ms (coordination " + result.coordinationOverheadMs() + " ms)";
        var old = snapshot.getStatus();
        s.conditions = Conditions.set(old == null || old.conditions == null ? new ArrayList<>() : old.conditions,
                ConditionTypes.READY, true, "Ready", s.message, s.observedGeneration, now);
        return s;
    }

    static RolloutSnapshotStatus copy(RolloutSnapshotStatus from) {
        RolloutSnapshotStatus s = new RolloutSnapshotStatus();
        s.observedGeneration = from.observedGeneration;
        s.phase = from.phase;
        s.reason = from.reason;
        s.message = from.message;
        s.conditions = new ArrayList<>(from.conditions);
        s.members = from.members;
        s.freezeWindowMillis = from.freezeWindowMillis;
        s.consistentAt = from.consistentAt;
        s.totalBytes = from.totalBytes;
        s.expiresAt = from.expiresAt;
        return s;
    }
}
