package dev.crucible.e2e.snapshot;

import static dev.crucible.e2e.snapshot.SnapshotFixtures.awaitPhase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.e2e.Manifests;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code storage: pvc}: every node's agent keeps images on one shared claim, so a branch is not
 * pinned and restores on another node. Here one real agent with one store serves all three kwok
 * nodes, standing for the agents that mount the same claim.
 */
class SharedStoreRestoreOnApiServerTest extends AgentsOnApiServerTest {

    @BeforeAll
    static void sharedAgent() throws Exception {
        AGENTS.start(tmp.resolve("shared-claim"), Files.createDirectories(tmp.resolve("workspaces")), SnapshotFixtures.NODES);
    }

    @Test
    void aBranchOfASharedStoreSnapshotRestoresOnAnotherNode() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = SnapshotFixtures.namespace("pvcbranch");
        List<RolloutMember> members = SnapshotFixtures.runningPair(client, ns, "pair-a0");
        bindProcesses(ns, members, 8);
        SnapshotFixtures.snapshot(client, ns, "pair-a0-s1", "pair-a0",
                "storage: {type: pvc, claimName: crucible-snapshots}");
        RolloutSnapshot snap = awaitPhase(client, ns, "pair-a0-s1", SnapshotPhase.Ready);
        List<String> snapshotNodes = snap.getStatus().members.stream().map((SnapshotMember m) -> m.node).toList();
        String other = java.util.Arrays.stream(SnapshotFixtures.NODES).filter(n -> !snapshotNodes.contains(n))
                .findFirst().orElseThrow();

        // The same roles in smaller pods, placed on the node that held neither member.
        Manifests.environment(client, ns, "pair-small", """
                resources: {cpu: "4", memory: 1Gi}
                topology:
                  gangTimeoutSeconds: 120
                  roles:
                    - name: worker
                      replicas: 2
                """);
        Manifests.rollout(client, ns, "moved", "pair-small", """
                restoreFrom: {snapshotName: pair-a0-s1}
                placement:
                  nodeSelector: {kubernetes.io/hostname: %s}
                """.formatted(other));
        await().atMost(Duration.ofSeconds(60)).until(() -> get(ns, "moved").getStatus() != null
                && "pair-a0-s1".equals(get(ns, "moved").getStatus().restoredFrom));
        Rollout moved = get(ns, "moved");
        assertThat(moved.getStatus().members).extracting(m -> m.node).containsOnly(other);
        assertThat(snapshotNodes).doesNotContain(other);
        for (RolloutMember m : moved.getStatus().members) {
            long pid = AGENTS.pidOf(ns, m.pod);
            restored.add(pid);
            assertThat(MemoryWorkload.status(pid)).as("member " + m.pod + " restored on " + other).isNotNull();
        }
    }
}
