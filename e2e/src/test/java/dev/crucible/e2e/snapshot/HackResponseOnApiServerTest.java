package dev.crucible.e2e.snapshot;

import dev.crucible.contract.PhaseName;
import static dev.crucible.e2e.snapshot.SnapshotFixtures.awaitPhase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.e2e.Manifests;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code snapshotPolicy.onHack} on the real API server, with real agents and CRIU behind the kwok pods. */
class HackResponseOnApiServerTest extends AgentsOnApiServerTest {

    static final String HACKED = """
            {"reward":0.0,"verdict":"fail","hackFindings":[{"detector":"protected-path-modified","severity":"high",
            "path":"tests/test_ops.py","evidence":"sha256 changed","action":"terminate"}],"turns":3,"phase":"Hacked"}""";

    @BeforeAll
    static void agents() throws Exception {
        SnapshotFixtures.startAgents(tmp);
    }

    private List<RolloutMember> runningWithProcesses(String ns, String policy) throws Exception {
        List<RolloutMember> members = SnapshotFixtures.runningPair(client, ns, "pair-a0", policy);
        bindProcesses(ns, members, 8);
        return members;
    }

    @Test
    void onHackSnapshotCapturesTheHackedStateBeforeThePodsStop() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = SnapshotFixtures.namespace("hacksnap");
        List<RolloutMember> members = runningWithProcesses(ns, "snapshotPolicy: {onHack: snapshot}");

        Manifests.verifierExits(client, ns, members.get(0).pod, HACKED);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, "pair-a0").getStatus().phase == PhaseName.Hacked);
        RolloutSnapshot hack = awaitPhase(client, ns, "pair-a0-hack", SnapshotPhase.Ready);
        assertThat(hack.getSpec().trigger).hasToString("HACK");
        assertThat(hack.getStatus().members).hasSize(2).allSatisfy(m -> assertThat(m.bytes).isPositive());
        // Taken with leaveRunning: false, and only then are the pods stopped.
        await().atMost(Duration.ofSeconds(30)).until(() -> Manifests.podsOf(client, ns, "pair-a0").isEmpty());
        await().atMost(Duration.ofSeconds(10)).until(() -> MemoryWorkload.status(workloads.get(1).pid()) == null);
    }

    @Test
    void onHackRevertStartsABranchFromTheLastGoodSnapshot() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = SnapshotFixtures.namespace("hackrevert");
        List<RolloutMember> members = runningWithProcesses(ns, "snapshotPolicy: {intervalSeconds: 30, keep: 2, onHack: revert, "
                + "revertPatches: [{path: HINT.md, content: 'the tests are not yours to change'}]}");
        awaitPhase(client, ns, "pair-a0-p1", SnapshotPhase.Ready);

        Manifests.verifierExits(client, ns, members.get(0).pod, HACKED);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, "pair-a0").getStatus().phase == PhaseName.Hacked);
        assertThat(get(ns, "pair-a0").getStatus().message).contains("reverted").contains("pair-a0-revert").contains("pair-a0-p1");

        await().atMost(Duration.ofSeconds(60)).until(() -> get(ns, "pair-a0-revert") != null
                && get(ns, "pair-a0-revert").getStatus() != null
                && "pair-a0-p1".equals(get(ns, "pair-a0-revert").getStatus().restoredFrom));
        Rollout branch = get(ns, "pair-a0-revert");
        assertThat(branch.getSpec().restoreFrom.snapshotName).isEqualTo("pair-a0-p1");
        assertThat(branch.getMetadata().getLabels()).containsEntry("crucible.dev/reverts", "1");
        assertThat(branch.getSpec().patches).as("the revert's own patches, applied to the reverted workspace").singleElement()
                .satisfies(p -> assertThat(p.path).isEqualTo("HINT.md"));
        assertThat(branch.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getName()).isEqualTo("pair-a0"));
        long pid = AGENTS.pidOf(ns, "pair-a0-revert-worker-0");
        restored.add(pid);
        assertThat(MemoryWorkload.status(pid)).as("the reverted member runs from the good snapshot").isNotNull();
    }
}
