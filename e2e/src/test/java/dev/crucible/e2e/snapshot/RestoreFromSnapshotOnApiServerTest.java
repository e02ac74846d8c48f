package dev.crucible.e2e.snapshot;

import dev.crucible.contract.PhaseName;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Branching on the real API server: Rollouts with {@code spec.restoreFrom} start from a Ready
 * RolloutSnapshot; each member is restored by the agent of the node holding its images (real CRIU),
 * and two branches of one snapshot run as independent processes.
 */
class RestoreFromSnapshotOnApiServerTest extends AgentsOnApiServerTest {

    @BeforeAll
    static void agents() throws Exception {
        SnapshotFixtures.startAgents(tmp);
    }

    static Rollout branch(String ns, String name, String snapshot) {
        Manifests.rollout(client, ns, name, "pair", "restoreFrom: {snapshotName: " + snapshot + "}\n");
        return client.resources(Rollout.class).inNamespace(ns).withName(name).get();
    }

    @Test
    void twoBranchesOfOneSnapshotRestoreOnTheImagesNodesAndRunIndependently() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = SnapshotFixtures.namespace("branch");
        List<RolloutMember> members = SnapshotFixtures.runningPair(client, ns, "pair-a0");
        bindProcesses(ns, members, 8);
        SnapshotFixtures.snapshot(client, ns, "pair-a0-s1", "pair-a0", "");
        RolloutSnapshot snap = awaitPhase(client, ns, "pair-a0-s1", SnapshotPhase.Ready);
        // The source ends; its nodes' capacity is what the branches need.
        client.resource(get(ns, "pair-a0")).delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().inNamespace(ns).list().getItems().isEmpty());

        branch(ns, "branch-a", "pair-a0-s1");
        await().atMost(Duration.ofSeconds(60)).until(() -> get(ns, "branch-a").getStatus() != null
                && "pair-a0-s1".equals(get(ns, "branch-a").getStatus().restoredFrom));
        // Restored as soon as its pods are on their nodes (Initializing), then it runs.
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, "branch-a").getStatus().phase == PhaseName.Running);
        Rollout a = get(ns, "branch-a");
        assertThat(a.getStatus().conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("Restored");
            assertThat(c.getStatus()).isEqualTo("True");
            assertThat(c.getMessage()).contains("restored from pair-a0-s1");
        });
        // Node-local images: each member runs where its images are.
        List<String> snapshotNodes = snap.getStatus().members.stream().map((SnapshotMember m) -> m.node).toList();
        assertThat(a.getStatus().members).extracting(m -> m.node).containsExactlyElementsOf(snapshotNodes);
        List<Long> branchA = restoredPids(ns, a);

        // Both branches pin to the same two nodes (33 of 64 CPUs each), so branch-a's pods go first;
        // its restored processes live on, and the two branches' processes are compared below.
        client.resource(a).delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().inNamespace(ns).list().getItems().isEmpty());
        Manifests.rollout(client, ns, "branch-b", "pair", """
                restoreFrom: {snapshotName: pair-a0-s1}
                patches:
                  - path: notes/hint.txt
                    content: "try the other approach"
                """);
        await().atMost(Duration.ofSeconds(60)).until(() -> get(ns, "branch-b").getStatus() != null
                && "pair-a0-s1".equals(get(ns, "branch-b").getStatus().restoredFrom));
        List<Long> branchB = restoredPids(ns, get(ns, "branch-b"));
        assertThat(get(ns, "branch-b").getStatus().conditions).anySatisfy(c ->
                assertThat(c.getMessage()).contains("with 1 patch(es)"));
        // Each branch restored its own copy of the workspace; only branch-b's carries the patch.
        Path wsA = workspaceOf(ns, "branch-a-worker-0");
        Path wsB = workspaceOf(ns, "branch-b-worker-0");
        assertThat(wsA).isNotEqualTo(wsB);
        assertThat(wsA.resolve("progress.txt")).exists();
        assertThat(wsB.resolve("progress.txt")).hasSameTextualContentAs(wsA.resolve("progress.txt"));
        assertThat(wsA.resolve("notes/hint.txt")).doesNotExist();
        assertThat(wsB.resolve("notes/hint.txt")).hasContent("try the other approach");

        // Four live processes from one snapshot: the branches share nothing.
        assertThat(branchA).doesNotContainAnyElementsOf(branchB);
        for (long pid : List.of(branchA.get(0), branchB.get(0))) {
            long c = MemoryWorkload.status(pid).count();
            await().atMost(Duration.ofSeconds(10)).until(() -> MemoryWorkload.status(pid).count() > c);
            assertThat(MemoryWorkload.status(pid).ok()).as("buffer checksum intact after restore").isTrue();
        }
    }

    private static Path workspaceOf(String ns, String pod) throws Exception {
        try (var dirs = Files.list(tmp.resolve("workspaces"))) {
            return dirs.filter(d -> d.getFileName().toString().startsWith(ns + "-" + pod + "-")).findFirst().orElseThrow();
        }
    }

    private List<Long> restoredPids(String ns, Rollout r) {
        List<Long> out = new ArrayList<>();
        for (RolloutMember m : r.getStatus().members) {
            long pid = AGENTS.pidOf(ns, m.pod);
            assertThat(pid).as("a restored process stands for " + m.pod).isPositive();
            assertThat(MemoryWorkload.status(pid)).as("restored process " + pid + " runs").isNotNull();
            restored.add(pid);
            out.add(pid);
        }
        return out;
    }

    @Test
    void aSnapshotWhoseMembersDoNotMatchTheEnvironmentIsRefusedNamingTheField() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = SnapshotFixtures.namespace("branchbad");
        List<RolloutMember> members = SnapshotFixtures.runningPair(client, ns, "pair-a0");
        bindProcesses(ns, members, 8);
        SnapshotFixtures.snapshot(client, ns, "pair-a0-s1", "pair-a0", "");
        awaitPhase(client, ns, "pair-a0-s1", SnapshotPhase.Ready);
        client.resource(get(ns, "pair-a0")).delete();

        Manifests.environment(client, ns, "single", "resources: {cpu: 500m, memory: 512Mi}");
        Manifests.rollout(client, ns, "single-a0", "single", "restoreFrom: {snapshotName: pair-a0-s1}\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, "single-a0").getStatus() != null
                && get(ns, "single-a0").getStatus().phase == PhaseName.Failed);
        Rollout failed = get(ns, "single-a0");
        assertThat(failed.getStatus().reason).isEqualTo("RestoreRejected");
        assertThat(failed.getStatus().message).contains("spec.restoreFrom.snapshotName").contains("2 member(s)")
                .contains("plans 1 pod(s)");
        assertThat(client.pods().inNamespace(ns).withLabel("crucible.dev/rollout", "single-a0").list().getItems()).isEmpty();
    }

    @Test
    void aDiskOnlySnapshotBranchesTheWorkspaceWithoutProcesses() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = SnapshotFixtures.namespace("branchdisk");
        List<RolloutMember> members = SnapshotFixtures.runningPair(client, ns, "pair-a0");
        var procs = bindProcesses(ns, members, 8);
        SnapshotFixtures.snapshot(client, ns, "pair-a0-disk", "pair-a0", "include: {memory: false, disk: true}");
        RolloutSnapshot snap = awaitPhase(client, ns, "pair-a0-disk", SnapshotPhase.Ready);
        assertThat(snap.getStatus().members).allSatisfy(m -> {
            assertThat(m.dumpMillis).as("no CRIU dump").isZero();
            assertThat(m.bytes).as("the workspace archive only").isPositive().isLessThan(1L << 20);
        });
        for (MemoryWorkload w : procs) {
            long c = w.status().count();
            await().atMost(Duration.ofSeconds(10)).until(() -> w.status().count() > c);
        }
        client.resource(get(ns, "pair-a0")).delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().inNamespace(ns).list().getItems().isEmpty());

        branch(ns, "fresh-start", "pair-a0-disk");
        await().atMost(Duration.ofSeconds(60)).until(() -> get(ns, "fresh-start").getStatus() != null
                && "pair-a0-disk".equals(get(ns, "fresh-start").getStatus().restoredFrom));
        assertThat(get(ns, "fresh-start").getStatus().conditions).anySatisfy(c ->
                assertThat(c.getMessage()).contains("(workspace only)"));
        assertThat(AGENTS.pidOf(ns, "fresh-start-worker-0")).as("no process was restored").isZero();
        Path ws = workspaceOf(ns, "fresh-start-worker-0");
        assertThat(ws.resolve("progress.txt")).hasContent("step 41 of " + members.get(0).pod);
        assertThat(ws.resolve(".crucible/restored")).as("the marker the init container waits for").exists();
    }
}
