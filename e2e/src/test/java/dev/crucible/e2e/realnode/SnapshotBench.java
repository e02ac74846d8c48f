package dev.crucible.e2e.realnode;

import static dev.crucible.e2e.realnode.SnapshotBenchSupport.await;
import static dev.crucible.e2e.realnode.SnapshotBenchSupport.awaits;
import static dev.crucible.e2e.realnode.SnapshotBenchSupport.log;
import static dev.crucible.e2e.realnode.SnapshotBenchSupport.oneLine;
import static dev.crucible.e2e.realnode.SnapshotBenchSupport.timed;

import dev.crucible.e2e.realnode.SnapshotBenchResults.Branch;
import dev.crucible.e2e.realnode.SnapshotBenchResults.Member;
import dev.crucible.snapshot.container.CtrImages;
import dev.crucible.snapshot.container.KubeletCheckpoints;
import dev.crucible.snapshot.container.KubeletContainerd;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.target.TargetScope;
import dev.crucible.snapshot.client.api.TargetSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Issue 17, "Measure": what a memory snapshot of a rollout's pods through the container runtime costs
 * on the real node ({@code e2e/real-node/up}), per size of the agent's memory. Run by
 * {@code e2e/real-node/snapshot-bench}, whose header defines every printed field.
 *
 * <p>Per size: two pods (the members of one rollout), each a python3 process that holds SIZE MiB of
 * random bytes and counts in memory every 100 ms into {@code /data/count} (an emptyDir, read from the
 * node). One engine, as the node's agent runs it (pod scope, the kubelet's checkpoint API, containerd
 * for imports), takes a two-phase snapshot across both, as the operator's {@code TwoPhaseSnapshot}
 * does: prepare both (freeze), dump both (workspace archive, then the runtime's checkpoint), commit
 * both (thaw), each phase on both members in parallel threads. Then two branches of member 0 are
 * restored (image import, then a pod naming the checkpoint image) and must continue its count.
 * Prints one line per size on stdout ({@link SnapshotBenchResults}); progress and errors go to stderr. The
 * cluster and node side is {@link SnapshotBenchCluster}, the options {@link SnapshotBenchOptions}.
 *
 * <p>Why: the runtime path is the only one a pod can be restored from, and its cost (the runtime's
 * checkpoint archive, its import, containerd's restore) differs from the agent's own CRIU path that
 * {@code crucible snapshot bench} measures; the script prints both and their ratio.
 */
public final class SnapshotBench {
    static final int MEMBERS = 2;
    private static final List<String> BRANCHES = List.of("branch-a", "branch-b");
    /** A restored process may run a few ticks around the runtime's own pause (ContainerCheckpointTest). */
    static final long COUNT_SLACK = 5;
    /** SIZE MiB of random (incompressible, non-zero) bytes, then a count in memory every 100 ms. */
    private static final String AGENT = """
            import os, time
            held = [os.urandom(1 << 20) for _ in range(%d)]
            i = 0
            while True:
              i += 1
              open('/data/count.tmp', 'w').write(str(i))
              os.replace('/data/count.tmp', '/data/count')  # whole: a freeze between truncate and write would leave it empty
              time.sleep(0.1)
            """;

    private final SnapshotBenchOptions o;
    private final KubernetesClient client;
    private final SnapshotBenchCluster cluster;
    private final String image;

    private SnapshotBench(SnapshotBenchOptions o, KubernetesClient client) throws Exception {
        this.o = o;
        this.client = client;
        this.cluster = new SnapshotBenchCluster(o, client);
        this.image = "docker.io/crucible/examples/python-calc:" + SnapshotBenchCluster.appVersion(o.repo());
    }

    public static void main(String[] args) throws Exception {
        SnapshotBenchOptions o = SnapshotBenchOptions.parse(args);
        Path kubeconfig = o.state().resolve("admin.kubeconfig");
        Config config = Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
        int failed = 0;
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            SnapshotBench bench = new SnapshotBench(o, client);
            for (long size : o.sizes()) {
                String line;
                try {
                    line = bench.measure(size);
                } catch (Exception e) {
                    failed++;
                    e.printStackTrace();
                    line = String.format(Locale.ROOT, "members=%d size_mib=%d failed=\"%s\"", MEMBERS, size, oneLine(e));
                }
                System.out.println(line);
                System.out.flush();
            }
        } catch (Throwable t) {
            t.printStackTrace();
            failed++;
        } finally {
            SnapshotBenchCluster.deleteStore(o.store());
        }
        // exit, not return: the kubelet client's event loop threads would keep the JVM up
        System.exit(failed == 0 ? 0 : 1);
    }

    private String measure(long sizeMiB) throws Exception {
        String tag = Long.toString(System.currentTimeMillis(), 36);
        cluster.freshNamespace();
        List<Manifest> imported = new ArrayList<>();
        try (SnapshotEngine engine = engine()) {
            List<Member> members = startMembers(sizeMiB, tag);
            long wallMs = twoPhaseSnapshot(engine, members);
            List<Branch> branches = new ArrayList<>();
            Member m0 = members.get(0);
            imported.add(m0.manifest); // before the restore: a failed import may have left part of it
            for (String name : BRANCHES) {
                branches.add(restoreBranch(engine, m0, name));
            }
            return SnapshotBenchResults.line(sizeMiB, members, wallMs, branches);
        } finally {
            cluster.cleanUp(imported);
        }
    }

    private SnapshotEngine engine() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Path run = o.run();
        KubeletCheckpoints kubelet = new KubeletCheckpoints(new KubeletCheckpoints.Access(cluster.nodeIp(), 10250,
                run.resolve("kubelet/pki/kubelet.crt"), null, o.state().resolve("pki/admin.crt"), o.state().resolve("pki/admin.key")));
        return new EngineBuilder().store(o.store()).workspaceRoot(run.resolve("kubelet/pods"))
                .scope(TargetScope.pods()).manifestKey(ManifestKey.of(key))
                .containerRuntime(new KubeletContainerd(kubelet, new CtrImages(o.nodeBin().resolve("ctr"), run.resolve("containerd.sock"))))
                .build();
    }

    /** Both members created, then waited for: each has allocated its memory and counted a second. */
    private List<Member> startMembers(long sizeMiB, String tag) {
        List<String> command = List.of("python3", "-c", String.format(Locale.ROOT, AGENT, sizeMiB));
        for (int i = 0; i < MEMBERS; i++) {
            cluster.create(SnapshotBenchCluster.pod("member-" + i, image, command, i));
        }
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            String name = "member-" + i;
            await(Duration.ofMinutes(5), () -> cluster.count(name) >= 10, name + " allocating " + sizeMiB + " MiB and counting");
            Pod live = client.pods().inNamespace(o.namespace()).withName(name).get();
            String containerId = live.getStatus().getContainerStatuses().get(0).getContainerID();
            SnapshotRequest req = new SnapshotRequest("bench-" + sizeMiB + "-" + tag + "-m" + i, "bench-" + sizeMiB + "-" + tag,
                    new TargetSpec(null, null, live.getMetadata().getUid(), containerId), null, false, false,
                    cluster.emptyDir(live).toString(), 600_000L, null, null, new RuntimeCheckpoint(o.namespace(), name, "agent"));
            members.add(new Member(i, name, req));
        }
        log("members running with " + sizeMiB + " MiB each");
        return members;
    }

    /**
     * Prepare all, dump all, commit all, each phase on every member in parallel (the operator's
     * TwoPhaseSnapshot); any failure aborts every member. Returns the whole protocol's wall time.
     */
    private long twoPhaseSnapshot(SnapshotEngine engine, List<Member> members) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(members.size());
        long t0 = System.nanoTime();
        try {
            phase(pool, members, m -> m.prepareMs = timed(() -> engine.prepare(m.request)));
            for (Member m : members) {
                m.countAtFreeze = cluster.count(m.pod);
            }
            phase(pool, members, m -> m.dumpMs = timed(() -> engine.dump(m.request.snapshotId())));
            for (Member m : members) {
                m.countAtSnapshot = cluster.count(m.pod); // frozen again after the runtime's checkpoint: the count it holds
            }
            phase(pool, members, m -> m.commitMs = timed(() -> m.manifest = engine.commit(m.request.snapshotId(), CommitAction.THAW)));
            return (System.nanoTime() - t0) / 1_000_000;
        } catch (Exception e) {
            for (Member m : members) {
                try {
                    engine.abort(m.request.snapshotId(), "bench: " + oneLine(e));
                } catch (RuntimeException ignored) {
                    // never prepared, or already ended
                }
            }
            throw e;
        } finally {
            pool.shutdown();
        }
    }

    interface MemberStep {
        void run(Member m) throws Exception;
    }

    private static void phase(ExecutorService pool, List<Member> members, MemberStep step) throws Exception {
        List<Future<?>> calls = new ArrayList<>();
        for (Member m : members) {
            calls.add(pool.submit((Callable<Void>) () -> {
                step.run(m);
                return null;
            }));
        }
        for (Future<?> f : calls) {
            try {
                f.get(30, TimeUnit.MINUTES);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception ex ? ex : e;
            }
        }
    }

    /**
     * Imports the member's checkpoint image (engine.restore) and creates a pod from it; the time runs
     * until the restored process first writes its count into the new pod's emptyDir.
     */
    private Branch restoreBranch(SnapshotEngine engine, Member m, String name) {
        long t0 = System.nanoTime();
        RestoreResult r = engine.restore(RestoreRequest.of(m.request.snapshotId()));
        cluster.create(SnapshotBenchCluster.pod(name, r.checkpointImage(), null, m.index));
        await(Duration.ofMinutes(10), () -> cluster.count(name) > 0, name + " restored from " + r.checkpointImage());
        long toRunningMs = (System.nanoTime() - t0) / 1_000_000;
        long first = cluster.count(name);
        boolean countsOn = awaits(Duration.ofSeconds(30), () -> cluster.count(name) > first + 5);
        Branch b = new Branch(name, r.restoreMs(), toRunningMs, first, first >= m.countAtSnapshot - COUNT_SLACK,
                first >= m.countAtFreeze, countsOn);
        log(String.format(Locale.ROOT, "%s: count at freeze %d, at snapshot %d; first count %d; counts on: %s; import %d ms, to running %d ms",
                name, m.countAtFreeze, m.countAtSnapshot, first, countsOn, r.restoreMs(), toRunningMs));
        return b;
    }
}
