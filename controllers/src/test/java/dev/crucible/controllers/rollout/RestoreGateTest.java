package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotSpec;
import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotStatus;
import dev.crucible.api.v1alpha1.snapshot.SnapshotMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.api.v1alpha1.snapshot.StorageSpec;
import dev.crucible.api.v1alpha1.snapshot.StorageType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RestoreGateTest {

    static final String H100 = "NVIDIA-H100-80GB-HBM3";

    static List<MemberPlan> trainers(int n, int gpus) {
        List<MemberPlan> plan = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            plan.add(new MemberPlan("trainer", i, gpus, null, null, i == 0));
        }
        return plan;
    }

    static RolloutSnapshot snapshot(SnapshotPhase phase, int members, int gpus, String model, StorageType storage) {
        RolloutSnapshot s = new RolloutSnapshot();
        s.setSpec(new RolloutSnapshotSpec());
        if (storage != null) {
            s.getSpec().storage = new StorageSpec();
            s.getSpec().storage.type = storage;
        }
        s.setStatus(new RolloutSnapshotStatus());
        s.getStatus().phase = phase;
        s.getStatus().members = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            SnapshotMember m = new SnapshotMember();
            m.pod = "src-trainer-" + i;
            m.role = "trainer";
            m.node = "gpu-" + i;
            m.gpuCount = gpus == 0 ? null : gpus;
            m.gpuModel = model;
            s.getStatus().members.add(m);
        }
        return s;
    }

    @Test
    void aMissingOrUnfinishedSnapshotIsWaitedFor() {
        assertThat(RestoreGate.check("s", null, trainers(2, 8), H100).verdict()).isEqualTo(RestoreGate.Verdict.WAIT);
        var dumping = RestoreGate.check("s", snapshot(SnapshotPhase.Dumping, 2, 8, H100, null), trainers(2, 8), H100);
        assertThat(dumping.verdict()).isEqualTo(RestoreGate.Verdict.WAIT);
        assertThat(dumping.message()).contains("Dumping");
    }

    @Test
    void aFailedSnapshotIsRefused() {
        var r = RestoreGate.check("s", snapshot(SnapshotPhase.Failed, 2, 8, H100, null), trainers(2, 8), H100);
        assertThat(r.verdict()).isEqualTo(RestoreGate.Verdict.FAIL);
        assertThat(r.message()).startsWith("spec.restoreFrom.snapshotName").contains("Failed");
    }

    @Test
    void gpuCountAndModelMustMatch() {
        var fewer = RestoreGate.check("s", snapshot(SnapshotPhase.Ready, 2, 8, H100, null), trainers(2, 4), H100);
        assertThat(fewer.verdict()).isEqualTo(RestoreGate.Verdict.FAIL);
        assertThat(fewer.reason()).isEqualTo(Reasons.GPU_MISMATCH);
        assertThat(fewer.message()).contains("8 GPU(s)").contains("asks for 4");

        var otherModel = RestoreGate.check("s", snapshot(SnapshotPhase.Ready, 2, 8, H100, null), trainers(2, 8), "NVIDIA-A100-SXM4-80GB");
        assertThat(otherModel.verdict()).isEqualTo(RestoreGate.Verdict.FAIL);
        assertThat(otherModel.message()).contains(H100).contains("NVIDIA-A100-SXM4-80GB");
    }

    @Test
    void nodeLocalImagesPinEachMemberAndSharedStorageDoesNot() {
        var local = RestoreGate.check("s", snapshot(SnapshotPhase.Ready, 2, 8, H100, null), trainers(2, 8), H100);
        assertThat(local.verdict()).isEqualTo(RestoreGate.Verdict.GO);
        assertThat(local.pins()).containsEntry(0, "gpu-0").containsEntry(1, "gpu-1");

        var shared = RestoreGate.check("s", snapshot(SnapshotPhase.Ready, 2, 8, H100, StorageType.PVC), trainers(2, 8), H100);
        assertThat(shared.verdict()).isEqualTo(RestoreGate.Verdict.GO);
        assertThat(shared.pins()).isEmpty();
    }

    @Test
    void memberCountAndRolesMustMatchThePlan() {
        var count = RestoreGate.check("s", snapshot(SnapshotPhase.Ready, 2, 0, null, null), trainers(3, 0), null);
        assertThat(count.verdict()).isEqualTo(RestoreGate.Verdict.FAIL);
        assertThat(count.message()).contains("2 member(s)").contains("plans 3");
        List<MemberPlan> other = List.of(new MemberPlan("env", 0, 0, null, null, true), new MemberPlan("env", 1, 0, null, null, false));
        assertThat(RestoreGate.check("s", snapshot(SnapshotPhase.Ready, 2, 0, null, null), other, null).message())
                .contains("role trainer").contains("role env");
    }

    @Test
    void membersCheckpointedByTheRuntimeNameTheirCheckpointImageDerivedFromTheSnapshotId() {
        RolloutSnapshot s = snapshot(SnapshotPhase.Ready, 2, 0, null, null);
        SnapshotMember memory = s.getStatus().members.get(0);
        memory.imageLocation = "agent://cpu-0/snap-abc-0";
        memory.mode = "memory";
        // what the status says is not what the pod names: the reference is derived from the id again
        memory.checkpointImage = "registry.example/someone-elses:image";
        SnapshotMember disk = s.getStatus().members.get(1);
        disk.imageLocation = "agent://cpu-1/snap-abc-1";
        disk.mode = "disk";

        var r = RestoreGate.check("s", s, trainers(2, 0), null);

        assertThat(r.verdict()).isEqualTo(RestoreGate.Verdict.GO);
        assertThat(r.checkpointImages()).containsExactly(java.util.Map.entry(0,
                dev.crucible.snapshot.client.api.RuntimeCheckpoint.imageReference("snap-abc-0")));
        assertThat(r.checkpointImages().get(0)).isEqualTo("crucible.dev/checkpoint/snap-abc-0:latest");
    }

    @Test
    void processesCheckpointedInAUserNamespaceAreRefusedNamingWhyAndTheirWorkspaceIsNot() {
        RolloutSnapshot s = snapshot(SnapshotPhase.Ready, 1, 0, null, null);
        SnapshotMember m = s.getStatus().members.get(0);
        m.imageLocation = "agent://cpu-0/snap-abc-0";
        m.mode = "memory";
        m.checkpointImage = "crucible.dev/checkpoint/snap-abc-0:latest";
        m.userNamespace = true;

        var refused = RestoreGate.check("s", s, trainers(1, 0), null);
        assertThat(refused.verdict()).isEqualTo(RestoreGate.Verdict.FAIL);
        assertThat(refused.message()).contains("user namespace").contains("criu#2651").contains("include.memory: false");

        m.mode = "disk"; // a workspace-only snapshot of the same pod restores
        m.checkpointImage = null;
        assertThat(RestoreGate.check("s", s, trainers(1, 0), null).verdict()).isEqualTo(RestoreGate.Verdict.GO);
    }
}
