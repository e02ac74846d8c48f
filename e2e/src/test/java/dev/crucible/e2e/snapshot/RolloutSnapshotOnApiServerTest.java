package dev.crucible.e2e.snapshot;

import static dev.crucible.e2e.snapshot.SnapshotFixtures.awaitPhase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotStatus;
import dev.crucible.api.v1alpha1.snapshot.SnapshotMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.controllers.snapshot.SnapshotPlan;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The RolloutSnapshot controller against the real API server, coordinating real snapshot agents
 * (one per kwok node, as local processes) that freeze and dump real process trees with CRIU.
 */
class RolloutSnapshotOnApiServerTest extends AgentsOnApiServerTest {

    @BeforeAll
    static void agents() throws Exception {
        SnapshotFixtures.startAgents(tmp);
    }

    private static String namespace(String prefix) {
        return SnapshotFixtures.namespace(prefix);
    }

    private static void assertRuns(MemoryWorkload w) {
        long c = w.status().count();
        await().atMost(Duration.ofSeconds(10)).until(() -> w.status().count() > c);
    }

    @Test
    void everyMemberIsFrozenDumpedAndThawedTogether() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = namespace("snap");
        List<RolloutMember> members = SnapshotFixtures.runningPair(client, ns, "pair-a0");
        assertThat(members).extracting(m -> m.node).doesNotHaveDuplicates();
        List<MemoryWorkload> procs = bindProcesses(ns, members, 32);

        SnapshotFixtures.snapshot(client, ns, "pair-a0-s1", "pair-a0", "");
        RolloutSnapshot ready = awaitPhase(client, ns, "pair-a0-s1", SnapshotPhase.Ready);
        RolloutSnapshotStatus st = ready.getStatus();
        System.out.printf("rollout-snapshot: members=%d freeze_window_ms=%d total_mib=%d message=%s%n",
                st.members.size(), st.freezeWindowMillis, st.totalBytes >> 20, st.message);

        assertThat(st.members).hasSize(2).allSatisfy(m -> {
            assertThat(m.container).isEqualTo("agent");
            assertThat(m.bytes).isGreaterThan(16L << 20);
            assertThat(m.dumpMillis).isNotNull();
            assertThat(m.imageLocation).startsWith("node/" + m.node + "/rs-" + ready.getMetadata().getUid());
        });
        assertThat(st.members).extracting(m -> m.pod).containsExactlyInAnyOrder(members.get(0).pod, members.get(1).pod);
        assertThat(st.freezeWindowMillis).isPositive();
        assertThat(st.consistentAt).isNotBlank();
        assertThat(st.conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("Ready");
            assertThat(c.getStatus()).isEqualTo("True");
        });
        procs.forEach(RolloutSnapshotOnApiServerTest::assertRuns);
        var registry = SharedCluster.operator().metrics().registry();
        assertThat(registry.find("crucible.snapshots").tag("outcome", "ready").counter().count()).isGreaterThanOrEqualTo(1);
        assertThat(registry.find("crucible.snapshot.freeze.window").summary().max()).isPositive();

        // The images are complete on each member's own node, and one restores into a running copy.
        SnapshotMember first = st.members.get(0);
        var agent = AGENTS.agentOn(first.node);
        String id = SnapshotPlan.idOf(first.imageLocation);
        assertThat(agent.list()).anySatisfy(m -> {
            assertThat(m.id).isEqualTo(id);
            assertThat(m.state).isEqualTo(SnapshotState.COMPLETE);
            assertThat(m.workspaceBytes).isPositive();
        });
        Path out = Files.createDirectories(tmp.resolve("workspaces").resolve(ns + "-restored"));
        long pid = agent.restore(new RestoreRequest(id, out.toString(), true, false)).pid();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> MemoryWorkload.status(pid) != null
                    && MemoryWorkload.status(pid).ok());
            assertThat(Files.readString(out.resolve("progress.txt"))).contains(first.pod);
        } finally {
            MemoryWorkload.kill(pid);
        }

        // Deleting the RolloutSnapshot deletes its images on every node.
        client.resource(ready).delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> SnapshotFixtures.get(client, ns, "pair-a0-s1") == null);
        for (SnapshotMember m : st.members) {
            assertThat(AGENTS.agentOn(m.node).list()).noneSatisfy(x ->
                    assertThat(x.id).isEqualTo(SnapshotPlan.idOf(m.imageLocation)));
        }
    }

    @Test
    void aMemberThatCannotBeFrozenFailsTheSnapshotAndThawsTheOthers() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = namespace("snapfail");
        List<RolloutMember> members = SnapshotFixtures.runningPair(client, ns, "pair-a0");
        MemoryWorkload alive = bindProcesses(ns, members.subList(0, 1), 16).get(0);
        AGENTS.bind(ns, members.get(1).pod, 4_000_000L, null); // no such process

        SnapshotFixtures.snapshot(client, ns, "pair-a0-s1", "pair-a0", "");
        RolloutSnapshot failed = awaitPhase(client, ns, "pair-a0-s1", SnapshotPhase.Failed);

        assertThat(failed.getStatus().reason).isEqualTo("SnapshotFailed");
        assertThat(failed.getStatus().message).contains("aborted on every member").contains("4000000");
        assertThat(SharedCluster.operator().metrics().registry().find("crucible.snapshots")
                .tag("reason", "SnapshotFailed").counter().count()).isGreaterThanOrEqualTo(1);
        assertRuns(alive);
        var agent = AGENTS.agentOn(members.get(0).node);
        String id = SnapshotPlan.idOf(failed.getStatus().members.get(0).imageLocation);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                agent.list().stream().anyMatch(m -> m.id.equals(id) && m.state == SnapshotState.FAILED));
    }

    @Test
    void anOperatorThatDiesMidSnapshotThawsEveryMemberWhenItComesBack() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = namespace("snapcrash");
        List<RolloutMember> members = SnapshotFixtures.runningPair(client, ns, "pair-a0");
        List<MemoryWorkload> procs = bindProcesses(ns, members, 16);

        // The operator is gone after recording Preparing and freezing the first member.
        SharedCluster.stopOperator();
        try {
            RolloutSnapshot s = SnapshotFixtures.snapshot(client, ns, "pair-a0-s1", "pair-a0", "");
            RolloutSnapshotStatus preparing = new RolloutSnapshotStatus();
            preparing.phase = SnapshotPhase.Preparing;
            preparing.members = new ArrayList<>();
            for (int i = 0; i < members.size(); i++) {
                SnapshotMember m = new SnapshotMember();
                m.pod = members.get(i).pod;
                m.node = members.get(i).node;
                m.container = "agent";
                m.imageLocation = SnapshotPlan.imageLocation(m.node, SnapshotPlan.snapshotId(s, i));
                preparing.members.add(m);
            }
            s.setStatus(preparing);
            client.resource(s).updateStatus();
            String id = SnapshotPlan.snapshotId(s, 0);
            AGENTS.agentOn(members.get(0).node).prepare(SnapshotRequest.of(id, TargetSpec.ofPid(procs.get(0).pid()))
                    .withFreezeTimeoutMs(600_000));
            long frozenAt = procs.get(0).status().count();
            Thread.sleep(300);
            assertThat(procs.get(0).status().count()).as("member 0 is frozen").isEqualTo(frozenAt);
        } finally {
            SharedCluster.operator();
        }

        RolloutSnapshot failed = awaitPhase(client, ns, "pair-a0-s1", SnapshotPhase.Failed);
        assertThat(failed.getStatus().reason).isEqualTo("OperatorRestarted");
        assertRuns(procs.get(0));
        assertThat(AGENTS.agentOn(members.get(0).node).list()).anySatisfy(m -> {
            assertThat(m.id).isEqualTo(SnapshotPlan.snapshotId(failed, 0));
            assertThat(m.state).isEqualTo(SnapshotState.FAILED);
        });
    }

    @Test
    void aSnapshotOfAMissingRolloutFailsNamingTheField() {
        String ns = namespace("snapmissing");
        SnapshotFixtures.snapshot(client, ns, "nothing-s1", "nothing", "");
        RolloutSnapshot failed = awaitPhase(client, ns, "nothing-s1", SnapshotPhase.Failed);
        assertThat(failed.getStatus().reason).isEqualTo("RolloutNotFound");
        assertThat(failed.getStatus().message).contains("spec.rolloutRef.name").contains("nothing");
    }

    @Test
    void periodicSnapshotsFollowThePolicyAndKeepOnlyTheNewest() throws Exception {
        SnapshotFixtures.assumeCriu();
        String ns = namespace("snapperiodic");
        List<RolloutMember> members = SnapshotFixtures.runningPair(client, ns, "pair-a0",
                "snapshotPolicy: {intervalSeconds: 30, keep: 1}");
        bindProcesses(ns, members, 8);

        RolloutSnapshot first = awaitPhase(client, ns, "pair-a0-p1", SnapshotPhase.Ready);
        assertThat(first.getSpec().trigger).hasToString("PERIODIC");
        await().atMost(Duration.ofSeconds(10)).until(() -> "pair-a0-p1".equals(lastSnapshot(ns)));

        awaitPhase(client, ns, "pair-a0-p2", SnapshotPhase.Ready);
        await().atMost(Duration.ofSeconds(30)).until(() -> SnapshotFixtures.get(client, ns, "pair-a0-p1") == null);
        assertThat(lastSnapshot(ns)).isEqualTo("pair-a0-p2");
        // keep: 1 deleted p1's images on the agents too.
        for (SnapshotMember m : first.getStatus().members) {
            assertThat(AGENTS.agentOn(m.node).list()).noneSatisfy(x ->
                    assertThat(x.id).isEqualTo(SnapshotPlan.idOf(m.imageLocation)));
        }
    }

    /**
     * The API server refuses the policy's snapshot (here a ValidatingAdmissionPolicy; in the fault suite a webhook that is
     * down): the Rollout says so in a Degraded condition and its status goes on being written; once the refusal is
     * lifted, the snapshot is made and Degraded goes back to False. Before, the refusal threw out of the reconcile ahead
     * of the status write, retried for minutes with nothing on the Rollout. (A ResourceQuota does not serve: without a
     * controller-manager its usage is never computed and the API server admits.)
     */
    @Test
    void aRefusedPeriodicSnapshotIsSaidOnTheRolloutAndTriedAgain() throws Exception {
        String ns = namespace("snaprefused");
        String policy = ns + "-no-snapshots";
        client.resource("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicy
                metadata: {name: %1$s}
                spec:
                  failurePolicy: Fail
                  matchConstraints:
                    resourceRules:
                      - {apiGroups: [crucible.dev], apiVersions: ["*"], operations: [CREATE], resources: [rolloutsnapshots]}
                  validations:
                    - {expression: "false", message: "snapshots refused by policy %1$s"}
                """.formatted(policy)).create();
        client.resource("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicyBinding
                metadata: {name: %1$s}
                spec:
                  policyName: %1$s
                  validationActions: [Deny]
                  matchResources:
                    namespaceSelector:
                      matchLabels: {kubernetes.io/metadata.name: %2$s}
                """.formatted(policy, ns)).create();
        try {
            SnapshotFixtures.runningPair(client, ns, "pair-a0", "snapshotPolicy: {intervalSeconds: 30, keep: 1}");
            try {
                await().atMost(Duration.ofSeconds(120)).until(() -> degraded(ns) != null && "True".equals(degraded(ns).getStatus()));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("no Degraded condition; status: " + get(ns, "pair-a0").getStatus().conditions + "; snapshots: "
                        + snapshotNames(ns), e);
            }
            var c = degraded(ns);
            System.out.printf("refused snapshot: reason=%s message=%s%n", c.getReason(), c.getMessage());
            assertThat(c.getReason()).isEqualTo("SnapshotRefused");
            assertThat(c.getMessage()).contains("periodic snapshot pair-a0-p").contains("snapshots refused by policy " + policy);
            assertThat(snapshotNames(ns)).isEmpty();
            assertThat(SnapshotFixtures.phase(client, ns, "pair-a0")).isEqualTo(dev.crucible.contract.PhaseName.Running);
        } finally {
            client.resources(io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding.class).withName(policy).delete();
            client.resources(io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy.class).withName(policy).delete();
        }
        await().atMost(Duration.ofSeconds(120)).until(() -> !snapshotNames(ns).isEmpty());
        await().atMost(Duration.ofSeconds(30)).until(() -> "False".equals(degraded(ns).getStatus()));
        assertThat(degraded(ns).getReason()).isEqualTo("SnapshotsCreated");
    }

    private static List<String> snapshotNames(String ns) {
        return client.resources(RolloutSnapshot.class).inNamespace(ns).list().getItems().stream().map(x -> x.getMetadata().getName()).toList();
    }

    private static io.fabric8.kubernetes.api.model.Condition degraded(String ns) {
        var r = get(ns, "pair-a0");
        return r == null || r.getStatus() == null || r.getStatus().conditions == null ? null
                : r.getStatus().conditions.stream().filter(x -> "Degraded".equals(x.getType())).findFirst().orElse(null);
    }

    private static String lastSnapshot(String ns) {
        var r = get(ns, "pair-a0");
        return r.getStatus() == null ? null : r.getStatus().lastSnapshot;
    }
}
