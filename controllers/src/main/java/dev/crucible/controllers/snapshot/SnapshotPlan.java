package dev.crucible.controllers.snapshot;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotMember;
import dev.crucible.controllers.common.RolloutLabels;
import java.util.ArrayList;
import java.util.List;

/**
 * Which containers a snapshot captures and the agent-side id of each: one per rollout member (its
 * agent container), named after the RolloutSnapshot's UID so that a retried or resumed reconcile
 * addresses the same images and two snapshots never collide on an agent.
 */
public final class SnapshotPlan {

    private SnapshotPlan() {
    }

    public static String group(RolloutSnapshot snapshot) {
        return "rs-" + snapshot.getMetadata().getUid();
    }

    public static String snapshotId(RolloutSnapshot snapshot, int memberIndex) {
        return group(snapshot) + "-" + memberIndex;
    }

    /** Where the member's images are, as status reports it: the node and the agent's id. */
    public static String imageLocation(String node, String snapshotId) {
        return "node/" + node + "/" + snapshotId;
    }

    /** The agent-side snapshot id out of an image location written by {@link #imageLocation}. */
    public static String idOf(String imageLocation) {
        return imageLocation.substring(imageLocation.lastIndexOf('/') + 1);
    }

    /** Status members before the dump: who, where and under which id. */
    public static List<SnapshotMember> members(RolloutSnapshot snapshot, Rollout rollout, RLEnvironment env) {
        List<SnapshotMember> out = new ArrayList<>();
        List<RolloutMember> members = rollout.getStatus().members;
        String gpuModel = env == null || env.getSpec().resources == null ? null : env.getSpec().resources.gpuModel;
        for (int i = 0; i < members.size(); i++) {
            RolloutMember m = members.get(i);
            SnapshotMember s = new SnapshotMember();
            s.pod = m.pod;
            s.container = RolloutLabels.AGENT_CONTAINER;
            s.node = m.node;
            s.role = m.role;
            s.imageLocation = imageLocation(m.node, snapshotId(snapshot, i));
            int gpus = m.gpus == null ? 0 : m.gpus;
            s.gpu = gpus > 0;
            if (gpus > 0) {
                s.gpuCount = gpus;
                s.gpuModel = gpuModel;
            }
            out.add(s);
        }
        return out;
    }
}
