package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.PodLayout;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.controllers.snapshot.SnapshotAgents;
import dev.crucible.controllers.snapshot.SnapshotPlan;
import dev.crucible.snapshot.client.api.WorkspacePatch;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code spec.restoreFrom}: whether the snapshot can be restored into this rollout's plan (the gate),
 * and putting each snapshotted member back into its branch pod through the agent of the pod's node,
 * with {@code spec.patches} applied first.
 */
final class BranchRestore {
    private final Supplier<InformerEventSource<RolloutSnapshot, Rollout>> snapshots;
    private final SnapshotAgents agents;

    /** @param agents null when this operator has none: a restore then fails with that reason */
    BranchRestore(Supplier<InformerEventSource<RolloutSnapshot, Rollout>> snapshots, SnapshotAgents agents) {
        this.snapshots = snapshots;
        this.agents = agents;
    }

    /** The restore gate: the snapshot from the informer, the plan from the environment. */
    RestoreGate.Result gate(Rollout rollout, RLEnvironment env) {
        String name = rollout.getSpec().restoreFrom.snapshotName;
        RolloutSnapshot snapshot = snapshots.get().get(new ResourceID(name, rollout.getMetadata().getNamespace())).orElse(null);
        return RestoreGate.check(name, snapshot, TopologyPlanner.plan(env.getSpec()),
                env.getSpec().resources == null ? null : env.getSpec().resources.gpuModel);
    }

    /** The decision after a restore, and what was restored (null: nothing this time). */
    record Restored(RolloutDecision decision, String what) {
    }

    /**
     * Restores as soon as every branch pod is on its node (its init container waits for the
     * workspace), once; a restore that fails fails the rollout.
     */
    Restored whenPlaced(Rollout rollout, RestoreGate.Result gate, RolloutDecision d,
                        dev.crucible.api.v1alpha1.rollout.RolloutStatus old, RLEnvironment env, Map<String, Pod> observed) {
        if (gate == null || gate.verdict() != RestoreGate.Verdict.GO
                || d.phase() != PhaseName.Initializing && d.phase() != PhaseName.Running
                || old != null && old.restoredFrom != null) {
            return new Restored(d, null);
        }
        try {
            return new Restored(d, restoreMembers(rollout, gate.snapshot(), env, observed));
        } catch (RuntimeException e) {
            return new Restored(RolloutStateMachine.terminal(PhaseName.Failed, Reasons.RESTORE_FAILED, "restoring "
                    + rollout.getSpec().restoreFrom.snapshotName + " failed: " + e.getMessage(), old, true), null);
        }
    }

    /** Restores every member; returns what was restored, for the Restored condition. */
    private String restoreMembers(Rollout rollout, RolloutSnapshot snapshot, RLEnvironment env, Map<String, Pod> observed) {
        if (agents == null) {
            throw new SnapshotAgents.Unavailable("this operator has no snapshot agents configured");
        }
        String name = snapshot.getMetadata().getName();
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        List<WorkspacePatch> patches = new java.util.ArrayList<>(rollout.getSpec().patches == null ? List.of()
                : rollout.getSpec().patches.stream().map(p -> new WorkspacePatch(p.path, p.content, p.diff)).toList());
        int userPatches = patches.size();
        // Last: the marker the branch pod's init container waits for.
        patches.add(new WorkspacePatch(PodLayout.RESTORED_MARKER, name + "\n", null));
        boolean processes = snapshot.getSpec().include == null || !Boolean.FALSE.equals(snapshot.getSpec().include.memory);
        StringBuilder what = new StringBuilder("restored from " + name
                + (userPatches == 0 ? "" : " with " + userPatches + " patch(es)") + (processes ? "" : " (workspace only)") + ":");
        for (int i = 0; i < plan.size(); i++) {
            Pod pod = observed.get(plan.get(i).podName(rollout.getMetadata().getName()));
            String id = SnapshotPlan.idOf(snapshot.getStatus().members.get(i).imageLocation);
            what.append(' ').append(pod.getMetadata().getName()).append(" (")
                    .append(agents.restore(pod, RolloutLabels.AGENT_CONTAINER, id, patches, processes)).append(')');
        }
        return what.toString();
    }
}
