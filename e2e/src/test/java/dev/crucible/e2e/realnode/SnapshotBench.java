package dev.crucible.e2e.realnode;

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
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.target.TargetScope;
import dev.crucible.snapshot.client.api.TargetSpec;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

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
 * Prints one line per size on stdout; progress and errors go to stderr.
 *
 * <p>Why: the runtime path is the only one a pod can be restored from, and its cost (the runtime's
 * checkpoint archive, its import, containerd's restore) differs from the agent's own CRIU path that
 * {@code crucible snapshot bench} measures; the script prints both and their ratio.
 */
public final class SnapshotBench {
    private static final int MEMBERS = 2;
    private static final List<String> BRANCHES = List.of("branch-a", "branch-b");
    /** A restored process may run a few ticks around the runtime's own pause (ContainerCheckpointTest). */
    private static final long COUNT_SLACK = 5;
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

    private final Options o;
    private final KubernetesClient client;
    private final String image;
    /** Each pod's count file on the node, known from the pod's uid when it is created. */
    private final Map<String, Path> countFiles = new ConcurrentHashMap<>();

    private SnapshotBench(Options o, KubernetesClient client) throws Exception {
        this.o = o;
        this.client = client;
        this.image = "docker.io/crucible/examples/python-calc:" + appVersion(o.repo);
    }

    // ------------------------------------------------------------------ options and main

    /** Paths come from the script (lib.sh knows them): state dir, node binaries, repository root. */
    record Options(List<Long> sizes, String namespace, Path state, Path nodeBin, Path repo, Path store) {
        /** The node's files: up may keep them outside the state directory and link node/ there. */
        Path run() {
            try {
                return state.resolve("node").toRealPath();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        static Options parse(String[] args) {
            List<Long> sizes = List.of(256L, 1024L);
            String ns = "crucible-snapshot-bench";
            Path state = null, nodeBin = null, repo = Path.of("").toAbsolutePath(), store = null;
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--sizes" -> sizes = Arrays.stream(v.split(",")).map(String::strip).map(Long::parseLong).toList();
                    case "--namespace" -> ns = v;
                    case "--state" -> state = Path.of(v);
                    case "--node-bin" -> nodeBin = Path.of(v);
                    case "--repo" -> repo = Path.of(v);
                    case "--store" -> store = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
                            + " (--sizes 256,1024 --namespace NS --state DIR --node-bin DIR --repo DIR --store DIR)");
                }
                i++;
            }
            if (state == null || nodeBin == null || store == null) {
                throw new IllegalArgumentException("--state, --node-bin and --store are required (e2e/real-node/snapshot-bench passes them)");
            }
            return new Options(sizes, ns, state, nodeBin, repo, store);
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        Path kubeconfig = o.state.resolve("admin.kubeconfig");
        Config config = Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
        int failed = 0;
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            SnapshotBench bench = new SnapshotBench(o, client);
            for (long size : o.sizes) {
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
            deleteStore(o.store);
        }
        // exit, not return: the kubelet client's event loop threads would keep the JVM up
        System.exit(failed == 0 ? 0 : 1);
    }

    // ------------------------------------------------------------------ one size

    /** One member's snapshot: its request, the count it held while frozen, its phase times. */
    static final class Member {
        final int index;
        final String pod;
        final SnapshotRequest request;
        /** Read while frozen by prepare, before the runtime's checkpoint lifts the freeze. */
        long countAtFreeze;
        /** Read while frozen again after the dump: what ContainerCheckpointTest calls the count at snapshot. */
        long countAtSnapshot;
        long prepareMs;
        long dumpMs;
        long commitMs;
        Manifest manifest;

        Member(int index, String pod, SnapshotRequest request) {
            this.index = index;
            this.pod = pod;
            this.request = request;
        }

        long ownMs() {
            return prepareMs + dumpMs + commitMs;
        }

        double checkpointMibS() {
            return manifest.checkpointBytes / 1048576.0 / (Math.max(1, manifest.checkpointMs) / 1000.0);
        }
    }

    /**
     * One restored branch: how long from the import to its first count; whether that count continues
     * the count at snapshot (within {@link #COUNT_SLACK}) or at least the count at the freeze (the
     * checkpoint lies between the two), and whether it counts on.
     */
    record Branch(String pod, long importMs, long toRunningMs, long firstCount, boolean fromSnapshot, boolean fromFreeze,
                  boolean countsOn) {
        boolean continued() {
            return fromSnapshot && countsOn;
        }

        boolean continuedFromFreeze() {
            return fromFreeze && countsOn;
        }
    }

    private String measure(long sizeMiB) throws Exception {
        String tag = Long.toString(System.currentTimeMillis(), 36);
        freshNamespace();
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
            return line(sizeMiB, members, wallMs, branches);
        } finally {
            cleanUp(imported);
        }
    }

    private SnapshotEngine engine() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Path run = o.run();
        KubeletCheckpoints kubelet = new KubeletCheckpoints(new KubeletCheckpoints.Access(nodeIp(), 10250,
                run.resolve("kubelet/pki/kubelet.crt"), null, o.state.resolve("pki/admin.crt"), o.state.resolve("pki/admin.key")));
        return new EngineBuilder().store(o.store).workspaceRoot(run.resolve("kubelet/pods"))
                .scope(TargetScope.pods()).manifestKey(ManifestKey.of(key))
                .containerRuntime(new KubeletContainerd(kubelet, new CtrImages(o.nodeBin.resolve("ctr"), run.resolve("containerd.sock"))))
                .build();
    }

    /** Both members created, then waited for: each has allocated its memory and counted a second. */
    private List<Member> startMembers(long sizeMiB, String tag) {
        List<String> command = List.of("python3", "-c", String.format(Locale.ROOT, AGENT, sizeMiB));
        for (int i = 0; i < MEMBERS; i++) {
            create(pod("member-" + i, image, command, i));
        }
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            String name = "member-" + i;
            await(Duration.ofMinutes(5), () -> count(name) >= 10, name + " allocating " + sizeMiB + " MiB and counting");
            Pod live = client.pods().inNamespace(o.namespace).withName(name).get();
            String containerId = live.getStatus().getContainerStatuses().get(0).getContainerID();
            SnapshotRequest req = new SnapshotRequest("bench-" + sizeMiB + "-" + tag + "-m" + i, "bench-" + sizeMiB + "-" + tag,
                    new TargetSpec(null, null, live.getMetadata().getUid(), containerId), null, false, false,
                    emptyDir(live).toString(), 600_000L, null, null, new RuntimeCheckpoint(o.namespace, name, "agent"));
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
                m.countAtFreeze = count(m.pod);
            }
            phase(pool, members, m -> m.dumpMs = timed(() -> engine.dump(m.request.snapshotId())));
            for (Member m : members) {
                m.countAtSnapshot = count(m.pod); // frozen again after the runtime's checkpoint: the count it holds
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
        create(pod(name, r.checkpointImage(), null, m.index));
        await(Duration.ofMinutes(10), () -> count(name) > 0, name + " restored from " + r.checkpointImage());
        long toRunningMs = (System.nanoTime() - t0) / 1_000_000;
        long first = count(name);
        boolean countsOn = awaits(Duration.ofSeconds(30), () -> count(name) > first + 5);
        Branch b = new Branch(name, r.restoreMs(), toRunningMs, first, first >= m.countAtSnapshot - COUNT_SLACK,
                first >= m.countAtFreeze, countsOn);
        log(String.format(Locale.ROOT, "%s: count at freeze %d, at snapshot %d; first count %d; counts on: %s; import %d ms, to running %d ms",
                name, m.countAtFreeze, m.countAtSnapshot, first, countsOn, r.restoreMs(), toRunningMs));
        return b;
    }

    private String line(long sizeMiB, List<Member> members, long wallMs, List<Branch> branches) {
        long freeze = members.stream().mapToLong(m -> m.manifest.freezeWindowMs).max().orElseThrow();
        long slowest = members.stream().mapToLong(Member::ownMs).max().orElseThrow();
        double minMibS = members.stream().mapToDouble(Member::checkpointMibS).min().orElseThrow();
        double aggregateMibS = members.stream().mapToLong(m -> m.manifest.checkpointBytes).sum() / 1048576.0
                / (members.stream().mapToLong(m -> Math.max(1, m.manifest.checkpointMs)).max().orElseThrow() / 1000.0);
        double reward = branches.stream().filter(Branch::continued).count() / (double) branches.size();
        double rewardFromFreeze = branches.stream().filter(Branch::continuedFromFreeze).count() / (double) branches.size();
        return String.format(Locale.ROOT,
                "members=%d size_mib=%d freeze_window_ms=%d coordination_ms=%d checkpoint_mib_s=%.0f restore_to_running_ms=%d branch_reward=%.1f"
                        + " branch_reward_from_freeze=%.1f freeze_window_ms_each=%s checkpoint_mib_s_each=%s checkpoint_mib_s_aggregate=%.0f"
                        + " checkpoint_mib_each=%s checkpoint_ms_each=%s runtime_gap_ms_each=%s"
                        + " workspace_ms_each=%s member_ms_each=%s snapshot_wall_ms=%d import_ms_each=%s restore_to_running_ms_each=%s"
                        + " count_at_freeze=%d count_at_snapshot=%d first_count_each=%s",
                MEMBERS, sizeMiB, freeze, Math.max(0, wallMs - slowest), minMibS, branches.get(0).toRunningMs(), reward, rewardFromFreeze,
                each(members, m -> m.manifest.freezeWindowMs), joined(members.stream().map(m -> String.format(Locale.ROOT, "%.0f", m.checkpointMibS()))),
                aggregateMibS,
                joined(members.stream().map(m -> String.format(Locale.ROOT, "%.0f", m.manifest.checkpointBytes / 1048576.0))),
                each(members, m -> m.manifest.checkpointMs), each(members, m -> m.manifest.runtimeGapMs),
                each(members, m -> m.manifest.workspaceMs), each(members, Member::ownMs), wallMs,
                joined(branches.stream().map(b -> Long.toString(b.importMs()))), joined(branches.stream().map(b -> Long.toString(b.toRunningMs()))),
                members.get(0).countAtFreeze, members.get(0).countAtSnapshot, joined(branches.stream().map(b -> Long.toString(b.firstCount()))));
    }

    // ------------------------------------------------------------------ cluster helpers

    private void freshNamespace() {
        deleteNamespace();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(o.namespace).endMetadata().build()).create();
    }

    private void deleteNamespace() {
        if (client.namespaces().withName(o.namespace).get() != null) {
            client.namespaces().withName(o.namespace).withGracePeriod(0).delete();
            await(Duration.ofMinutes(3), () -> client.namespaces().withName(o.namespace).get() == null, "namespace " + o.namespace + " deleted");
        }
    }

    /** Pods gone first (an image in use is not removed), then the imported images; the store per size. */
    private void cleanUp(List<Manifest> imported) {
        try {
            deleteNamespace();
        } catch (RuntimeException e) {
            log("cleanup: " + oneLine(e));
        }
        for (String digest : imported.stream().map(m -> m.checkpointDigest).distinct().toList()) {
            List<String> refs = refsTo(digest);
            if (!refs.isEmpty()) {
                List<String> rm = new ArrayList<>(List.of("images", "rm"));
                rm.addAll(refs);
                ctr(rm.toArray(String[]::new));
            }
        }
        deleteStore(o.store);
    }

    /**
     * Every image name pointing at a checkpoint's image index: the name it was imported under, and the
     * one the CRI adds when a container uses it (its ID, {@code sha256:<config digest>}), which would
     * otherwise keep the GiB-sized layer in containerd's content store.
     */
    private List<String> refsTo(String indexDigest) {
        List<String> refs = new ArrayList<>();
        for (String line : ctr("images", "ls").split("\n")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length > 2 && cols[2].equals(indexDigest)) {
                refs.add(cols[0]);
            }
        }
        return refs;
    }

    private static void deleteStore(Path store) {
        if (Files.exists(store)) {
            ImageStore.deleteTree(store);
        }
    }

    /** Runs ctr on the node's containerd (k8s.io namespace); returns its stdout, "" after a failure (logged). */
    private String ctr(String... args) {
        List<String> cmd = new ArrayList<>(List.of(o.nodeBin.resolve("ctr").toString(), "-a", o.run().resolve("containerd.sock").toString(), "-n", "k8s.io"));
        cmd.addAll(List.of(args));
        try {
            // stderr apart: containerd's deprecation warnings are not part of the listing
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                log("cleanup: ctr " + String.join(" ", args) + " exit " + p.exitValue());
                return "";
            }
            return out;
        } catch (Exception e) {
            log("cleanup: ctr " + String.join(" ", args) + ": " + oneLine(e));
            return "";
        }
    }

    private Pod create(Pod p) {
        Pod created = client.pods().inNamespace(o.namespace).resource(p).create();
        countFiles.put(created.getMetadata().getName(), emptyDir(created).resolve("count"));
        return created;
    }

    /** Root, as the checkpoint needs here: this machine's bounding set lacks CAP_SYS_RESOURCE, and CRIU restores rlimits. */
    private static Pod pod(String name, String image, List<String> command, int member) {
        return new PodBuilder().withNewMetadata().withName(name).addToLabels("app", "snapshot-bench")
                .addToLabels("member", Integer.toString(member)).endMetadata()
                .withNewSpec().withRestartPolicy("Never").withTerminationGracePeriodSeconds(0L)
                .addNewContainer().withName("agent").withImage(image).withImagePullPolicy("Never").withCommand(command)
                .withNewSecurityContext().withRunAsUser(0L).endSecurityContext()
                .addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().endContainer()
                .addNewVolume().withName("data").withNewEmptyDir().endEmptyDir().endVolume()
                .endSpec().build();
    }

    private Path emptyDir(Pod p) {
        return o.run().resolve("kubelet/pods").resolve(p.getMetadata().getUid()).resolve("volumes/kubernetes.io~empty-dir/data");
    }

    /** The pod's count, read from its emptyDir on the node; 0 before it wrote one (or mid-write). */
    private long count(String pod) {
        try {
            return Long.parseLong(Files.readString(countFiles.get(pod)).strip());
        } catch (Exception e) {
            return 0;
        }
    }

    private String nodeIp() {
        return client.nodes().list().getItems().get(0).getStatus().getAddresses().stream()
                .filter(a -> "InternalIP".equals(a.getType())).findFirst().orElseThrow().getAddress();
    }

    /** The example images' tag: the chart's appVersion, as up imports them. */
    private static String appVersion(Path repo) throws Exception {
        return Files.readAllLines(repo.resolve("helm/crucible/Chart.yaml")).stream()
                .filter(l -> l.startsWith("appVersion:")).findFirst().orElseThrow()
                .replaceAll("^appVersion: *\"?([^\"# ]*).*$", "$1");
    }

    // ------------------------------------------------------------------ small helpers

    interface Step {
        void run() throws Exception;
    }

    private static long timed(Step s) throws Exception {
        long t0 = System.nanoTime();
        s.run();
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static void await(Duration limit, BooleanSupplier done, String what) {
        if (!awaits(limit, done)) {
            throw new IllegalStateException("timed out after " + limit.toSeconds() + " s waiting for " + what);
        }
    }

    /** Polls every 20 ms (the restore time's resolution); false at the limit. */
    private static boolean awaits(Duration limit, BooleanSupplier done) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (done.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return done.getAsBoolean();
    }

    private static String each(List<Member> members, java.util.function.Function<Member, Long> f) {
        return joined(members.stream().map(f).map(String::valueOf));
    }

    private static String joined(java.util.stream.Stream<String> s) {
        return s.collect(Collectors.joining(","));
    }

    private static String oneLine(Throwable e) {
        String msg = e.getClass().getSimpleName() + ": " + e.getMessage();
        return msg.replace('\n', ' ').replace('"', '\'');
    }

    private static void log(String s) {
        System.err.println("[snapshot-bench] " + s);
    }
}
