package dev.crucible.e2e.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.GroupSpec;
import dev.crucible.api.v1alpha1.rollout.LimitsSpec;
import dev.crucible.api.v1alpha1.rollout.PatchSpec;
import dev.crucible.api.v1alpha1.rollout.RestoreFromSpec;
import dev.crucible.api.v1alpha1.snapshot.SnapshotMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.common.PodLayout;
import dev.crucible.controllers.common.RolloutLabels;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 17 through the operator, as a user drives it: a memory snapshot of a running Rollout's non-root
 * agent container (the chart's snapshot agent asks the kubelet for the checkpoint), branches with
 * {@code spec.restoreFrom} and their own patches side by side, each graded by its own sidecar, and
 * {@code onHack: revert} continuing from the last good periodic snapshot with {@code revertPatches}.
 * Where the pods run in user namespaces ({@code up} turns {@code rollouts.userNamespaces} on: on this VM
 * it is the only way CRIU can checkpoint a non-root container), CRIU cannot restore their processes yet:
 * the memory branch is refused naming that, and the branches and the revert restore the workspace;
 * elsewhere they continue the checkpointed process.
 *
 * <p>The agent counts in memory and writes the count to its workspace; a fresh start would count from 1,
 * so a branch's count is the proof that its process (memory included) was restored. It reads two files
 * the test or a patch writes: {@code decide} ({@code fix}: run the honest fix, anything else: give up),
 * then writes {@code final} and exits; {@code hack} ({@code now}: run the hacking script and exit).
 */
@Tag(RealNodeSession.TAG)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class RolloutMemorySnapshotTest {
    private static final String NS = "crucible-memory-snapshot-test";
    private static final Path EXAMPLE = RealNodeCluster.repoRoot().resolve("examples/python-bugfix");
    private static final String ENV = "calc-small";
    private static final String AGENT = """
            import os, subprocess, sys, time
            def put(name, text):
                open(name + '.tmp', 'w').write(text)
                os.replace(name + '.tmp', name)
            def read(name):
                try:
                    return open(name).read().strip()
                except OSError:
                    return ''
            i = 0
            while True:
                i += 1
                put('count', str(i))
                if read('hack') == 'now':
                    subprocess.run(['sh', '../agents/hacker.sh'])
                    put('final', str(i))
                    sys.exit(0)
                decide = read('decide')
                if decide:
                    put('final', str(i))
                    if decide == 'fix':
                        subprocess.run(['sh', '../agents/honest.sh'])
                    time.sleep(10)  # long enough for the test to read 'final' from the node
                    sys.exit(0)
                time.sleep(0.1)
            """;

    private static KubernetesClient client;
    private static Path podsDir;
    /** The last value of {@code final} seen in each rollout's workspace (pods are removed when they end). */
    private static final Map<String, Long> finals = new ConcurrentHashMap<>();

    @BeforeAll
    static void startCluster() throws Exception {
        Path kubeconfig = RealNodeCluster.up();
        podsDir = kubeconfig.getParent().resolve("node/kubelet/pods");
        client = RealNodeCluster.client(kubeconfig);
        if (client.namespaces().withName(NS).get() != null) {
            client.namespaces().withName(NS).delete();
            Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> client.namespaces().withName(NS).get() == null);
        }
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
        // The example's environment, small enough that the node holds two branches side by side.
        String yaml = Files.readString(EXAMPLE.resolve("environment.yaml")).replace("name: calc-divide-bugfix", "name: " + ENV);
        RLEnvironment env = client.getKubernetesSerialization().unmarshal(yaml, RLEnvironment.class);
        env.getSpec().resources.cpu = "250m";
        env.getSpec().resources.memory = "256Mi";
        client.resource(env).inNamespace(NS).create();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (client != null) {
            client.namespaces().withName(NS).delete();
            client.close();
        }
        RealNodeCluster.downIfAsked(RolloutMemorySnapshotTest.class);
    }

    @Test
    void aMemorySnapshotOfARolloutAndTwoBranchesGradedApart() throws Exception {
        String source = create(countingRollout("counting"));
        Awaitility.await("the agent counting").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
                .until(() -> count(source) >= 20);
        long before = count(source);
        RolloutSnapshot snap = snapshotOf(source, "snap", true);
        long after = count(source);
        assertThat(snap.getStatus().phase).as(snap.getStatus().reason + ": " + snap.getStatus().message).isEqualTo(SnapshotPhase.Ready);
        SnapshotMember member = snap.getStatus().members.get(0);
        assertThat(member.mode).as("the agent container checkpointed through the kubelet").isEqualTo("memory");
        assertThat(member.checkpointImage).startsWith("crucible.dev/checkpoint/");
        assertThat(member.bytes).isPositive();
        System.out.printf("[memory-snapshot] count before=%d after=%d freeze_window_ms=%s user_namespace=%s%n", before, after,
                snap.getStatus().freezeWindowMillis, member.userNamespace);
        long afterReady = after;
        Awaitility.await("leaveRunning: the source counts on").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> count(source) > afterReady);

        boolean memoryBranches = !Boolean.TRUE.equals(member.userNamespace);
        String from = snap.getMetadata().getName();
        if (!memoryBranches) {
            // A pod in its own user namespace (up turns rollouts.userNamespaces on): CRIU checkpoints it (here, the only
            // way to checkpoint a non-root container: this VM's bounding set lacks CAP_SYS_RESOURCE) but cannot restore
            // into a pod's user namespace yet. The branch is refused up front, naming why; the workspace is the fallback.
            Rollout refused = finish(create(branch("counting-memory", from, "fix")));
            assertThat(refused.getStatus().phase).isEqualTo(PhaseName.Failed);
            assertThat(refused.getStatus().message).contains("user namespace").contains("criu#2651").contains("include.memory: false");
            System.err.println("memory branches refused on this node (pods in user namespaces): branching from the workspace");
            RolloutSnapshot disk = snapshotOf(source, "disk", false);
            assertThat(disk.getStatus().phase).as(disk.getStatus().message).isEqualTo(SnapshotPhase.Ready);
            assertThat(disk.getStatus().members.get(0).mode).isEqualTo("disk");
            before = after = count(source);
            from = disk.getMetadata().getName();
        }
        write(source, "decide", "stop"); // the source gives up and ends; its node share goes to the branches

        // Two branches side by side, each with its own patch: one fixes the bug, one gives up.
        create(branch("counting-fix", from, "fix"));
        create(branch("counting-stop", from, "stop"));
        awaitFinals(List.of("counting-fix", "counting-stop"));
        for (String b : List.of("counting-fix", "counting-stop")) {
            if (memoryBranches) {
                assertThat(finals.get(b)).as(b + ": its process continued the count it had at the checkpoint (a fresh start counts from 1)")
                        .isBetween(before, after + 2);
            } else {
                assertThat(finals.get(b)).as(b + ": the agent started again in the restored workspace").isLessThan(before);
            }
        }
        Rollout fixed = finish("counting-fix");
        Rollout gaveUp = finish("counting-stop");
        assertThat(fixed.getStatus().restoredFrom).isEqualTo(from);
        assertThat(fixed.getStatus().phase).as(fixed.getStatus().message).isEqualTo(PhaseName.Succeeded);
        assertThat(fixed.getStatus().reward).isEqualTo(1.0);
        assertThat(gaveUp.getStatus().reward).as("graded apart: the branch that gave up " + gaveUp.getStatus().message).isEqualTo(0.0);
        assertThat(gaveUp.getStatus().phase).isNotEqualTo(PhaseName.Hacked);
    }

    @Test
    void onHackRevertContinuesFromTheLastGoodSnapshotWithItsPatch() throws Exception {
        // Memory where this node can restore it (pods outside user namespaces), the workspace where it cannot.
        boolean memory = !userNamespaces();
        Rollout r = countingRollout("reverting");
        r.getSpec().snapshotPolicy = client.getKubernetesSerialization().unmarshal("""
                intervalSeconds: 30
                keep: 2
                onHack: revert
                include: {memory: %s, disk: true}
                revertPatches: [{path: decide, content: fix}]
                """.formatted(memory), dev.crucible.api.v1alpha1.rollout.SnapshotPolicySpec.class);
        String name = create(r);
        String good = Awaitility.await("the first periodic snapshot Ready").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
                .until(() -> status(name).lastSnapshot, s -> s != null);
        long atHack = count(name);
        write(name, "hack", "now"); // the agent rewrites the tests and a conftest.py, then ends
        Rollout hacked = finish(name);
        assertThat(hacked.getStatus().phase).as(hacked.getStatus().message).isEqualTo(PhaseName.Hacked);
        assertThat(hacked.getStatus().message).contains("reverted").contains(name + "-revert").contains(good);

        String revert = name + "-revert";
        awaitFinals(List.of(revert));
        Rollout reverted = finish(revert);
        assertThat(reverted.getStatus().restoredFrom).isEqualTo(good);
        assertThat(reverted.getSpec().patches).singleElement().satisfies(p -> assertThat(p.path).isEqualTo("decide"));
        if (memory) {
            // The periodic snapshot was taken at least intervalSeconds in: ~300 counts, where a fresh start has 1.
            assertThat(finals.get(revert)).as("the reverted process continues the count of the good snapshot").isBetween(100L, atHack);
        } else {
            assertThat(finals.get(revert)).as("the agent started again in the good snapshot's workspace").isLessThan(atHack);
        }
        assertThat(reverted.getStatus().phase).as(reverted.getStatus().message).isEqualTo(PhaseName.Succeeded);
        assertThat(reverted.getStatus().reward).as("the patch turned it honest").isEqualTo(1.0);
    }

    // --- helpers ---

    private static Rollout countingRollout(String name) throws Exception {
        Rollout r;
        try (InputStream in = new FileInputStream(EXAMPLE.resolve("rollout.yaml").toFile())) {
            r = client.resources(Rollout.class).load(in).item();
        }
        r.getMetadata().setName(name);
        r.getSpec().environmentRef.name = ENV;
        r.getSpec().agent.command = List.of("python3", "-c", AGENT);
        r.getSpec().limits = new LimitsSpec();
        r.getSpec().limits.maxDurationSeconds = 600;
        r.getSpec().group = new GroupSpec();
        r.getSpec().group.id = name;
        r.getSpec().group.attempt = 0;
        return r;
    }

    private static Rollout branch(String name, String snapshot, String decide) throws Exception {
        Rollout b = countingRollout(name);
        b.getSpec().restoreFrom = new RestoreFromSpec();
        b.getSpec().restoreFrom.snapshotName = snapshot;
        PatchSpec p = new PatchSpec();
        p.path = "decide";
        p.content = decide;
        b.getSpec().patches = List.of(p);
        return b;
    }

    /** Whether rollout pods run in their own user namespace here (the chart's rollouts.userNamespaces, as up installs it). */
    private static boolean userNamespaces() {
        return client.configMaps().inNamespace("crucible-system").list().getItems().stream()
                .flatMap(c -> c.getData() == null ? java.util.stream.Stream.empty() : c.getData().values().stream())
                .anyMatch(v -> v.contains("crucible.rollouts.user-namespaces=true"));
    }

    private static RolloutSnapshot snapshotOf(String rollout, String suffix, boolean memory) {
        String name = rollout + "-" + suffix;
        String yaml = """
                apiVersion: crucible.dev/v1alpha1
                kind: RolloutSnapshot
                metadata: {name: %s, namespace: %s}
                spec:
                  rolloutRef: {name: %s}
                  include: {memory: %s, disk: true}
                  leaveRunning: true
                  timeoutSeconds: 120
                """.formatted(name, NS, rollout, memory);
        client.resource(client.getKubernetesSerialization().unmarshal(yaml, RolloutSnapshot.class)).create();
        return Awaitility.await("the snapshot finished").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500))
                .until(() -> client.resources(RolloutSnapshot.class).inNamespace(NS).withName(name).get(),
                        x -> x != null && x.getStatus() != null && (x.getStatus().phase == SnapshotPhase.Ready
                                || x.getStatus().phase == SnapshotPhase.Failed));
    }

    /** Polls the rollouts' workspaces until each wrote {@code final} (a restored agent lingers 10 s after it). */
    private static void awaitFinals(List<String> rollouts) {
        Awaitility.await("the branches' final counts").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(200)).until(() -> {
            for (String r : rollouts) {
                long f = read(r, "final");
                if (f > 0) finals.put(r, f);
            }
            return rollouts.stream().allMatch(finals::containsKey);
        });
    }

    private static String create(Rollout r) {
        client.resources(Rollout.class).inNamespace(NS).resource(r).create();
        return r.getMetadata().getName();
    }

    private static dev.crucible.api.v1alpha1.rollout.RolloutStatus status(String name) {
        Rollout r = client.resources(Rollout.class).inNamespace(NS).withName(name).get();
        return r == null || r.getStatus() == null ? new dev.crucible.api.v1alpha1.rollout.RolloutStatus() : r.getStatus();
    }

    private static Rollout finish(String name) {
        return Awaitility.await(name + " finished").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(
                () -> client.resources(Rollout.class).inNamespace(NS).withName(name).get(),
                r -> r != null && r.getStatus() != null && r.getStatus().phase != null && r.getStatus().phase.isTerminal());
    }

    private static long count(String rollout) {
        return read(rollout, "count");
    }

    /** A number the agent wrote in its workspace, read on the node; -1 before it wrote one. */
    private static long read(String rollout, String file) {
        try {
            return Long.parseLong(Files.readString(workspace(rollout).resolve(file)).strip());
        } catch (Exception e) {
            return -1;
        }
    }

    private static void write(String rollout, String file, String content) throws Exception {
        Path ws = workspace(rollout);
        Files.writeString(ws.resolve(file + ".tmp"), content);
        Files.move(ws.resolve(file + ".tmp"), ws.resolve(file), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static Path workspace(String rollout) {
        Pod p = client.pods().inNamespace(NS).withLabels(RolloutLabels.forRollout(rollout)).list().getItems().stream().findFirst()
                .orElseThrow(() -> new IllegalStateException("no pod of " + rollout));
        return podsDir.resolve(p.getMetadata().getUid()).resolve("volumes/kubernetes.io~empty-dir/" + PodLayout.WORKSPACE_VOLUME);
    }
}
