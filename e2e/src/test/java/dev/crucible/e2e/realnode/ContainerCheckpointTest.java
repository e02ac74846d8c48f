package dev.crucible.e2e.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.controllers.common.PodLayout;
import dev.crucible.snapshot.container.CtrImages;
import dev.crucible.snapshot.client.api.WorkspacePatch;
import dev.crucible.snapshot.container.KubeletCheckpoints;
import dev.crucible.snapshot.container.KubeletContainerd;
import dev.crucible.snapshot.container.RestoredGpuResume;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.target.TargetScope;
import dev.crucible.snapshot.client.api.TargetSpec;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 on the real node: a container whose process counts in memory is checkpointed through the
 * kubelet's checkpoint API by the snapshot agent's engine (the agent's freeze, the workspace archive,
 * then the runtime's checkpoint), kept as a checkpoint image in the snapshot store (sealed manifest,
 * sha256 of every blob), imported into containerd by a restore, and two pods created from it continue
 * the count where it was: memory restored by containerd's CRI, not a fresh start (which counts from 1).
 */
@Tag(RealNodeSession.TAG)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ContainerCheckpointTest {
    private static final String NS = "crucible-checkpoint-test";
    /**
     * Counts every 100 ms, in memory, by the step in /data/step (1 without one): the count file is only
     * where the test reads it from the node, replaced whole (a freeze between a truncation and its write
     * left it empty, read as 0); the step file is what a branch's patch changes.
     */
    private static final String COUNTER = "import os, time\ni=0\nwhile True:\n  try:\n    step=int(open('/data/step').read())\n  except Exception:\n    step=1\n"
            + "  i+=step\n  open('/data/count.tmp','w').write(str(i))\n  os.replace('/data/count.tmp','/data/count')\n  time.sleep(0.1)\n";

    private static KubernetesClient client;
    private static Path state;
    /** The node's files (up may keep them outside the state directory and link node/ there). */
    private static Path run;

    @BeforeAll
    static void startCluster() throws Exception {
        Path kubeconfig = RealNodeCluster.up();
        state = kubeconfig.getParent();
        run = state.resolve("node").toRealPath();
        client = RealNodeCluster.client(kubeconfig);
        if (client.namespaces().withName(NS).get() != null) {
            client.namespaces().withName(NS).withGracePeriod(0).delete();
            Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> client.namespaces().withName(NS).get() == null);
        }
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (client != null) {
            client.namespaces().withName(NS).withGracePeriod(0).delete();
            client.close();
        }
        RealNodeCluster.downIfAsked(ContainerCheckpointTest.class);
    }

    @Test
    void aCheckpointedCounterContinuesInTwoRestoredPods(@TempDir Path dir) throws Exception {
        // the example environment's image, imported by up under the chart's appVersion
        String tag = Files.readAllLines(RealNodeCluster.repoRoot().resolve("helm/crucible/Chart.yaml")).stream()
                .filter(l -> l.startsWith("appVersion:")).findFirst().orElseThrow().replaceAll("^appVersion: *\"?([^\"# ]*).*$", "$1");
        String image = "docker.io/crucible/examples/python-calc:" + tag;
        Pod counter = create(pod("counter", image, List.of("python3", "-c", COUNTER)));
        Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> count(counter.getMetadata().getName()) >= 20);
        Pod live = client.pods().inNamespace(NS).withName("counter").get();
        String containerId = live.getStatus().getContainerStatuses().get(0).getContainerID();
        Path workspace = emptyDir(live);

        String node = live.getSpec().getNodeName();
        String nodeIp = client.nodes().withName(node).get().getStatus().getAddresses().stream()
                .filter(a -> "InternalIP".equals(a.getType())).findFirst().orElseThrow().getAddress();
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        KubeletCheckpoints kubelet = new KubeletCheckpoints(new KubeletCheckpoints.Access(nodeIp, 10250,
                run.resolve("kubelet/pki/kubelet.crt"), null, state.resolve("pki/admin.crt"), state.resolve("pki/admin.key")));
        try (SnapshotEngine engine = new EngineBuilder().store(dir.resolve("store")).workspaceRoot(run.resolve("kubelet/pods"))
                .scope(TargetScope.pods()).manifestKey(ManifestKey.of(key))
                .containerRuntime(new KubeletContainerd(kubelet, new CtrImages(nodeBin().resolve("ctr"), run.resolve("containerd.sock"))))
                .build()) {
            SnapshotRequest req = new SnapshotRequest("counter-1", "checkpoint-test", new TargetSpec(null, null, live.getMetadata().getUid(), containerId),
                    null, false, false, workspace.toString(), 120_000L, null, null, new RuntimeCheckpoint(NS, "counter", "agent"));
            long t0 = System.nanoTime();
            engine.prepare(req);
            long atFreeze = count("counter");
            engine.dump("counter-1");
            long atSnapshot = count("counter"); // frozen again after the runtime's checkpoint: the count it holds
            Thread.sleep(300);
            assertThat(count("counter")).as("the container stays frozen until commit").isEqualTo(atSnapshot);
            Manifest m = engine.commit("counter-1", CommitAction.THAW);
            long snapshotMs = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("[checkpoint] snapshot_ms=%d freeze_window_ms=%d lifted_ms=%d count_at_freeze=%d count_after_dump=%d%n",
                    snapshotMs, m.freezeWindowMs, m.runtimeGapMs, atFreeze, atSnapshot);
            // (the container ran between the agent's freeze and the runtime's pause: count_after_dump - count_at_freeze ticks)
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> count("counter") > atSnapshot + 5);

            assertThat(m.state).isEqualTo(SnapshotState.COMPLETE);
            assertThat(m.mode()).isEqualTo("memory");
            assertThat(m.checkpointImage).isEqualTo(RuntimeCheckpoint.imageReference("counter-1"));
            assertThat(m.checkpointBytes).isPositive();
            assertThat(m.files).containsKey("checkpoint/index.json").anySatisfy((f, d) -> assertThat(f).startsWith("checkpoint/blobs/sha256/"));
            assertThat(m.workspaceSha256).as("the workspace archived while frozen").isNotNull();

            // Two branches side by side, as the operator builds them: the pod waits in its init container
            // until the restore has put the workspace (patches applied) and the marker in place; the runtime
            // then restores the process. branch-b is a revert with a patch: its step file says 1000.
            long aFirst = branch(engine, m, "branch-a", image, List.of(), atSnapshot);
            long bFirst = branch(engine, m, "branch-b", image, List.of(new WorkspacePatch("step", "1000\n", null)), atSnapshot);
            // A fresh start counts from 0 by its step; a restored process goes on from the checkpoint's count
            // (give or take the tick the runtime let it run around its own pause).
            // (the count read after the dump may include a tick run after the runtime's checkpoint: ±2)
            assertThat(aFirst).as("branch-a continues the count").isBetween(atSnapshot - 2, atSnapshot + 100);
            long b = count("branch-b");
            assertThat(b).as("branch-b continues with the patched step").isGreaterThanOrEqualTo(1000);
            assertThat(b % 1000).as("branch-b: the checkpoint's count plus steps of 1000, not a restart (" + b + ")")
                    .isBetween(atSnapshot - 2, atSnapshot + 2);
            assertThat(count("branch-a")).as("branch-a unaffected by branch-b's patch").isLessThan(atSnapshot + 1000);

            // Deleting the snapshot removes its image from containerd, with the name the CRI added when it ran it.
            CtrImages ctr = new CtrImages(nodeBin().resolve("ctr"), run.resolve("containerd.sock"));
            assertThat(ctr.digestOf(m.checkpointImage, Duration.ofSeconds(30))).isEqualTo(m.checkpointDigest);
            assertThat(engine.delete("counter-1")).isTrue();
            assertThat(ctr.digestOf(m.checkpointImage, Duration.ofSeconds(30))).isNull();
            assertThat(ctrImages(ctr)).as("no name left on the checkpoint's layers").doesNotContain(m.checkpointDigest);
        }
    }

    /** Creates a branch pod, restores the snapshot into it, and returns the first count its process wrote. */
    private static long branch(SnapshotEngine engine, Manifest m, String name, String initImage, List<WorkspacePatch> patches,
                               long atSnapshot) throws java.io.IOException {
        Pod p = pod(name, m.checkpointImage, null);
        p.getSpec().setInitContainers(List.of(new io.fabric8.kubernetes.api.model.ContainerBuilder().withName("wait").withImage(initImage)
                .withImagePullPolicy("Never").withCommand("sh", "-c", "until [ -e /data/" + PodLayout.RESTORED_MARKER + " ]; do sleep 0.1; done")
                .addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().build()));
        Pod created = create(p);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> Files.isDirectory(emptyDir(created)));
        List<WorkspacePatch> all = new java.util.ArrayList<>(patches);
        all.add(new WorkspacePatch(PodLayout.RESTORED_MARKER, "counter-1\n", null)); // last, as BranchRestore does
        long c0 = System.nanoTime();
        RestoreResult r = engine.restore(new RestoreRequest("counter-1", emptyDir(created).toString(), true, false, all));
        assertThat(r.checkpointImage()).isEqualTo(m.checkpointImage);
        // the restored workspace holds the snapshot's count; the restored process writes the next one
        Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> count(name) > atSnapshot - 2 && Files.exists(emptyDir(created).resolve("count"))
                && Files.getLastModifiedTime(emptyDir(created).resolve("count")).toMillis() > System.currentTimeMillis() - 1000 && running(name));
        long toRunningMs = (System.nanoTime() - c0) / 1_000_000;
        long first = count(name);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> count(name) > first);
        // What the GPU half resumes after a runtime restore: the restored process, found by its pod and its
        // namespace pid (the counter is pid 1 of its container, as it was when checkpointed).
        assertThat(RestoredGpuResume.matching(Path.of("/proc"), created.getMetadata().getUid(), java.util.Set.of(1L)))
                .singleElement().satisfies(pid -> assertThat(Files.readString(Path.of("/proc", pid.toString(), "comm")).strip()).startsWith("python"));
        System.out.printf("[checkpoint] %s checkpoint_ms=%d runtime_gap_ms=%d size_mib=%.1f count_at_snapshot=%d first_count=%d "
                        + "import_ms=%d restore_to_running_ms=%d%n", name, m.checkpointMs, m.runtimeGapMs,
                m.checkpointBytes / 1048576.0, atSnapshot, first, r.restoreMs(), toRunningMs);
        return first;
    }

    private static Pod create(Pod p) {
        return client.pods().inNamespace(NS).resource(p).create();
    }

    /** Root, as the checkpoint needs here: this machine's bounding set lacks CAP_SYS_RESOURCE, and CRIU restores rlimits. */
    private static Pod pod(String name, String image, List<String> command) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withRestartPolicy("Never")
                .addNewContainer().withName("agent").withImage(image).withImagePullPolicy("Never").withCommand(command)
                .withNewSecurityContext().withRunAsUser(0L).endSecurityContext()
                .addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().endContainer()
                .addNewVolume().withName("data").withNewEmptyDir().endEmptyDir().endVolume()
                .endSpec().build();
    }

    /** Every image's target digest on the node, as `ctr images ls` lists them. */
    private static String ctrImages(CtrImages ctr) throws Exception {
        Process p = new ProcessBuilder(nodeBin().resolve("ctr").toString(), "-a", run.resolve("containerd.sock").toString(),
                "-n", "k8s.io", "images", "ls").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    private static boolean running(String pod) {
        Pod p = client.pods().inNamespace(NS).withName(pod).get();
        return p != null && p.getStatus() != null && p.getStatus().getContainerStatuses() != null
                && p.getStatus().getContainerStatuses().stream().anyMatch(c -> c.getState() != null && c.getState().getRunning() != null);
    }

    private static Path emptyDir(Pod p) {
        return run.resolve("kubelet/pods").resolve(p.getMetadata().getUid()).resolve("volumes/kubernetes.io~empty-dir/data");
    }

    /** The pod's count, read from its emptyDir on the node; 0 before it wrote one. */
    private static long count(String pod) {
        Pod p = client.pods().inNamespace(NS).withName(pod).get();
        try {
            return Long.parseLong(Files.readString(emptyDir(p).resolve("count")).strip());
        } catch (Exception e) {
            return 0;
        }
    }

    private static Path nodeBin() {
        String dir = System.getenv("CRUCIBLE_NODE_DIR");
        if (dir != null && !dir.isBlank()) return Path.of(dir);
        Path cache = Path.of(System.getenv().getOrDefault("CRUCIBLE_CACHE", System.getProperty("user.home") + "/.cache/crucible"));
        try (var dirs = Files.list(cache.resolve("node"))) {
            return dirs.sorted().reduce((a, b) -> b).orElseThrow();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
