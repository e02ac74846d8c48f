package dev.crucible.controllers.rollout;

import dev.crucible.controllers.snapshot.SnapshotPlan;
import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.snapshot.SnapshotMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.api.v1alpha1.snapshot.StorageType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether a Rollout with {@code spec.restoreFrom} may start from its snapshot: the snapshot must be
 * Ready, have one member per planned pod with the same roles, and GPU members must get the same
 * GPU model and count. Node-local images pin each member to the node that holds them; images on a
 * shared volume restore anywhere.
 */
public final class RestoreGate {

    static final String FIELD = "spec.restoreFrom.snapshotName";

    public enum Verdict { WAIT, FAIL, GO }

    /**
     * @param pins     planned pod index → node it must run on (empty: anywhere)
     * @param snapshot the snapshot to restore, with GO (null otherwise)
     */
    public record Result(Verdict verdict, String reason, String message, Map<Integer, String> pins, RolloutSnapshot snapshot,
                         Map<Integer, String> checkpointImages) {
        public Result(Verdict verdict, String reason, String message, Map<Integer, String> pins, RolloutSnapshot snapshot) {
            this(verdict, reason, message, pins, snapshot, Map.of());
        }

        static Result waitFor(String message) {
            return new Result(Verdict.WAIT, Reasons.WAITING_FOR_SNAPSHOT, message, Map.of(), null);
        }

        static Result fail(String reason, String message) {
            return new Result(Verdict.FAIL, reason, message, Map.of(), null);
        }
    }

    private RestoreGate() {
    }

    public static Result check(String snapshotName, RolloutSnapshot snapshot, List<MemberPlan> plan, String gpuModel) {
        if (snapshot == null) {
            return Result.waitFor(FIELD + ": RolloutSnapshot " + snapshotName + " does not exist (yet) in this namespace");
        }
        SnapshotPhase phase = snapshot.getStatus() == null ? null : snapshot.getStatus().phase;
        if (phase == SnapshotPhase.Failed || phase == SnapshotPhase.Expired) {
            return Result.fail(Reasons.RESTORE_REJECTED, FIELD + ": RolloutSnapshot " + snapshotName + " is " + phase
                    + " and cannot be restored");
        }
        if (phase != SnapshotPhase.Ready) {
            return Result.waitFor("waiting for RolloutSnapshot " + snapshotName + " to be Ready (it is "
                    + (phase == null ? "new" : phase) + ")");
        }
        List<SnapshotMember> members = snapshot.getStatus().members;
        if (members == null || members.size() != plan.size()) {
            return Result.fail(Reasons.RESTORE_REJECTED, FIELD + ": RolloutSnapshot " + snapshotName + " has "
                    + (members == null ? 0 : members.size()) + " member(s) but the environment plans " + plan.size() + " pod(s)");
        }
        boolean nodeLocal = snapshot.getSpec().storage == null || snapshot.getSpec().storage.type == null
                || snapshot.getSpec().storage.type == StorageType.NODE_LOCAL;
        Map<Integer, String> pins = new LinkedHashMap<>();
        Map<Integer, String> images = new LinkedHashMap<>();
        for (int i = 0; i < plan.size(); i++) {
            MemberPlan p = plan.get(i);
            SnapshotMember m = members.get(i);
            if (!Objects.equals(p.role(), m.role)) {
                return Result.fail(Reasons.RESTORE_REJECTED, FIELD + ": member " + i + " of RolloutSnapshot " + snapshotName
                        + " has role " + m.role + " but the environment plans role " + p.role());
            }
            int had = m.gpuCount == null ? 0 : m.gpuCount;
            if (had != p.gpus()) {
                return Result.fail(Reasons.GPU_MISMATCH, FIELD + ": member " + m.pod + " was snapshotted with " + had
                        + " GPU(s); member " + p.role() + "-" + p.index() + " of this rollout asks for " + p.gpus());
            }
            if (had > 0 && m.gpuModel != null && gpuModel != null && !m.gpuModel.equals(gpuModel)) {
                return Result.fail(Reasons.GPU_MISMATCH, FIELD + ": member " + m.pod + " was snapshotted on " + m.gpuModel
                        + " GPUs; the environment asks for " + gpuModel + " (CUDA state restores only on the same model)");
            }
            if (m.checkpointImage != null && Boolean.TRUE.equals(m.userNamespace)) {
                return Result.fail(Reasons.RESTORE_REJECTED, FIELD + ": member " + m.pod + " of RolloutSnapshot " + snapshotName
                        + " was checkpointed in its pod's user namespace (hostUsers: false), and CRIU cannot yet restore processes "
                        + "into a pod's user namespace (checkpoint-restore/criu#2651, 'Can't setns .../net'). Branch from a snapshot "
                        + "with include.memory: false (its workspace restores), or snapshot rollouts run with rollouts.userNamespaces=false");
            }
            if (nodeLocal) {
                pins.put(i, m.node);
            }
            if (m.checkpointImage != null && m.imageLocation != null) {
                // The runtime restores this member's processes from its checkpoint image. The name is the
                // snapshot id's, derived again here rather than taken from the status as written.
                images.put(i, RuntimeCheckpoint.imageReference(SnapshotPlan.idOf(m.imageLocation)));
            }
        }
        return new Result(Verdict.GO, null, null, pins, snapshot, images);
    }

    /** The decision after the gate: a restore that cannot be done fails the rollout; one not ready yet holds it Pending. */
    static RolloutDecision apply(RolloutDecision d, RestoreGate.Result gate, dev.crucible.api.v1alpha1.rollout.RolloutStatus old,
                                                    java.util.Map<String, io.fabric8.kubernetes.api.model.Pod> observed) {
        if (gate == null) {
            return d;
        }
        if (gate.verdict() == RestoreGate.Verdict.FAIL) {
            return RolloutStateMachine.terminal(PhaseName.Failed, gate.reason(), gate.message(), old, true);
        }
        if (gate.verdict() == RestoreGate.Verdict.WAIT && observed.isEmpty()) {
            return RolloutStateMachine.waiting(PhaseName.Pending, gate.reason(), gate.message(), old, java.time.Duration.ofSeconds(2));
        }
        return d;
    }
}
