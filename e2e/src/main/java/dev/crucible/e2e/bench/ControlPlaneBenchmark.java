package dev.crucible.e2e.bench;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.e2e.cluster.CrdInstaller;
import dev.crucible.e2e.cluster.FakeNodes;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code e2e/bench/control-plane --rollouts N}: a real kube-apiserver + kube-scheduler + kwok with 50
 * CPU nodes and 10 nodes of 8 GPUs, the operator in-process (or, with {@code --deployed}, as the chart runs it:
 * {@link DeployedOperator}); creates N Rollouts (CPU, GPU and two-node
 * GPU gangs), waits until all are Running, probes one-at-a-time creations with N live, and prints two
 * lines of figures. Latencies are measured on this side with millisecond clocks (creationTimestamp has
 * only second resolution): from just before the create request to when the watch shows the rollout's
 * last pod. When agent-sandbox is installed ({@link PeerSandboxRun}), its controller then runs the same
 * single-pod load on the same cluster and prints the same two lines, prefixed {@code peer=…}.
 */
public final class ControlPlaneBenchmark {

    /** Rollouts created one by one after the burst, to measure create→pods with N live. */
    static final int PROBES = 20;
    static final String BENCH_NAMESPACE = "bench";

    private ControlPlaneBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rollouts = 1000;
        int cpuNodes = 50;
        int gpuNodes = 10;
        int gpusPerNode = 8;
        int timeoutSeconds = 900;
        String peerDir = null;
        boolean heapOnly = false;
        boolean deployed = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rollouts" -> rollouts = Integer.parseInt(args[++i]);
                case "--heap-only" -> heapOnly = true;
                case "--cpu-nodes" -> cpuNodes = Integer.parseInt(args[++i]);
                case "--gpu-nodes" -> gpuNodes = Integer.parseInt(args[++i]);
                case "--gpus-per-node" -> gpusPerNode = Integer.parseInt(args[++i]);
                case "--timeout-seconds" -> timeoutSeconds = Integer.parseInt(args[++i]);
                case "--peer" -> peerDir = args[++i];
                case "--deployed" -> deployed = true;
                default -> {
                    System.err.println("usage: control-plane [--rollouts N] [--cpu-nodes 50] [--gpu-nodes 10] "
                            + "[--gpus-per-node 8] [--timeout-seconds 900] [--peer AGENT_SANDBOX_DIR] [--heap-only] [--deployed]");
                    System.exit(2);
                }
            }
        }
        KubeBinaries binaries = KubeBinaries.find();
        if (binaries == null) {
            System.err.println(KubeBinaries.MISSING);
            System.exit(2);
        }
        BenchmarkWorkload load = BenchmarkWorkload.of(rollouts, gpuNodes * gpusPerNode);
        System.err.printf("workload: %d cpu, %d gpu, %d two-node gangs (%d pods) on %d cpu + %d gpu nodes%n",
                load.cpu(), load.gpu(), load.gangs(), load.pods(), cpuNodes, gpuNodes);
        if (heapOnly) {
            try (LocalCluster cluster = LocalCluster.start(binaries)) {
                System.exit(OperatorHeapBenchmark.run(cluster, load, cpuNodes, gpuNodes, gpusPerNode, timeoutSeconds));
            }
        }
        PeerSandboxRun peer = PeerSandboxRun.find(peerDir);
        int exit;
        // The peer's writes are counted from the API server's audit log of its namespace (PeerSandboxRun), and
        // so are those of the deployed operator (its own process) in the benchmark's and its own namespace.
        List<String> audited = new ArrayList<>();
        if (peer != null) {
            audited.add(PeerSandboxRun.NAMESPACE);
        }
        if (deployed) {
            audited.addAll(List.of(BENCH_NAMESPACE, DeployedOperator.NAMESPACE));
        }
        try (LocalCluster cluster = LocalCluster.start(binaries, audited)) {
            exit = run(cluster, load, cpuNodes, gpuNodes, gpusPerNode, timeoutSeconds, deployed);
            if (peer != null && exit == 0) {
                exit = peer.run(cluster, BENCH_NAMESPACE, "probe-0", load.total(), timeoutSeconds);
            }
        }
        System.exit(exit);
    }

    static int run(LocalCluster cluster, BenchmarkWorkload load, int cpuNodes, int gpuNodes, int gpusPerNode,
                   int timeoutSeconds, boolean deployed) throws Exception {
        KubernetesClient client = prepare(cluster, load, cpuNodes, gpuNodes, gpusPerNode);
        String ns = BENCH_NAMESPACE;

        BenchOperator operator = deployed ? DeployedOperator.start(cluster, java.nio.file.Path.of("").toAbsolutePath())
                : new InProcessBenchOperator(cluster);

        Map<String, Integer> expectedPods = new HashMap<>();
        for (int i = 0; i < load.total(); i++) {
            expectedPods.put(BenchmarkObjects.name(i), load.environmentOf(i).equals("gang") ? load.gangReplicas() : 1);
        }
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Map<String, Long> podsSeenAt = new ConcurrentHashMap<>();
        Map<String, Integer> podsSeen = new ConcurrentHashMap<>();
        Map<String, Boolean> running = new ConcurrentHashMap<>();
        AtomicLong lastRunningAt = new AtomicLong();

        SharedIndexInformer<Pod> podWatch = client.pods().inNamespace(ns).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                long now = System.nanoTime();
                String rollout = pod.getMetadata().getLabels().get("crucible.dev/rollout");
                int seen = podsSeen.merge(rollout, 1, Integer::sum);
                if (seen == expectedPods.getOrDefault(rollout, 1)) {
                    podsSeenAt.put(rollout, now);
                }
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
            }

            @Override
            public void onDelete(Pod pod, boolean unknown) {
            }
        });
        SharedIndexInformer<Rollout> rolloutWatch = client.resources(Rollout.class).inNamespace(ns).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Rollout r) {
                check(r);
            }

            @Override
            public void onUpdate(Rollout oldR, Rollout newR) {
                check(newR);
            }

            @Override
            public void onDelete(Rollout r, boolean unknown) {
            }

            private void check(Rollout r) {
                if (r.getStatus() != null && r.getStatus().phase == PhaseName.Running
                        && running.putIfAbsent(r.getMetadata().getName(), true) == null) {
                    lastRunningAt.set(System.nanoTime());
                }
            }
        });

        long start = System.nanoTime();
        createAll(client, load, timeoutSeconds, name -> sentAt.put(name, System.nanoTime()));
        System.err.printf("created %d rollouts in %.1f s%n", load.total(), (System.nanoTime() - start) / 1e9);

        long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        long lastReport = 0;
        while (running.size() < load.total() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(5)) {
                lastReport = System.nanoTime();
                System.err.printf("  t=%.0fs pods-complete=%d running=%d queue=%d%n", (lastReport - start) / 1e9,
                        podsSeenAt.size(), running.size(), operator.queueDepth());
            }
        }
        boolean complete = running.size() == load.total();
        double allRunningSeconds = ((complete ? lastRunningAt.get() : System.nanoTime()) - start) / 1e9;
        // the steady-state target is about one new Rollout while N are live: probe that, one at a time, each
        // until Running, with the write counter reset so the probes' writes are counted on their own. The
        // burst's trailing writes (Events are sent asynchronously) land before the reset, not among the probes'.
        settle("operator writes", operator::writeActivity);
        WriteCounter burst = operator.writes();
        long burstWrites = burst.total();
        String burstBreakdown = burst.breakdown();
        operator.resetWrites();
        List<Long> live = new ArrayList<>();
        int probesRunning = 0;
        if (complete) {
            for (int i = 0; i < PROBES; i++) {
                String probe = "probe-" + i;
                expectedPods.put(probe, 1);
                long sent = System.nanoTime();
                client.resource(BenchmarkObjects.rollout(client, ns, probe, "cpu")).create();
                long until = sent + TimeUnit.SECONDS.toNanos(30);
                if (awaitKey(podsSeenAt, probe, until)) {
                    live.add(TimeUnit.NANOSECONDS.toMillis(podsSeenAt.get(probe) - sent));
                }
                probesRunning += awaitKey(running, probe, until) ? 1 : 0;
            }
            live.sort(Long::compare);
            System.err.printf("live_create_to_pods (one new Rollout at a time, %d live): p50_ms=%d p99_ms=%d max_ms=%d%n",
                    load.total(), percentile(live, 0.5), percentile(live, 0.99), live.isEmpty() ? -1 : live.get(live.size() - 1));
        }
        settle("operator writes after the probes", operator::writeActivity);   // the last probe's trailing writes are its own
        WriteCounter writes = operator.writes();
        long probeWrites = writes.total();
        String probeBreakdown = writes.breakdown();
        ProcessStats jvm = operator.stats();
        long peakRss = operator.peakRssMib();

        List<Long> latencies = new ArrayList<>();
        for (var e : podsSeenAt.entrySet()) {
            Long sent = e.getKey().startsWith("probe-") ? null : sentAt.get(e.getKey());
            if (sent != null) {
                latencies.add(TimeUnit.NANOSECONDS.toMillis(e.getValue() - sent));
            }
        }
        latencies.sort(Long::compare);
        Placement placement = placement(client, ns);
        podWatch.close();
        rolloutWatch.close();
        // A closed informer keeps its store (every pod and Rollout, managed fields and all): let it go before
        // the heap is measured, or the operator's figure carries the benchmark's own copies.
        podWatch = null;
        rolloutWatch = null;
        long heapMib = operator.heapMib();
        long series = operator.metricsSeries();
        System.err.println(operator.ownTimings());
        System.err.println("operator writes until all Running: " + burstBreakdown);
        System.err.printf("operator writes for %d probe Rollouts (single-pod CPU, each until Running): %s%n",
                probesRunning, probeBreakdown);
        System.err.printf("cpu_s=%.1f since the operator started, rss_mib=%d, peak %d: %s%n", jvm.cpuSeconds(), jvm.rssMib(),
                peakRss, operator.describe());
        System.out.printf("rollouts=%d create_to_pods_p50_ms=%d create_to_pods_p99_ms=%d all_running_s=%.1f "
                        + "operator_heap_mib=%d gpu_overcommit=%d misplaced=%d%n",
                load.total(), percentile(latencies, 0.50), percentile(latencies, 0.99), allRunningSeconds, heapMib,
                placement.gpuOvercommit(), placement.misplaced());
        // steady_p99_ms: one new Rollout's create→pods with all N live; api_writes_per_rollout: every write the
        // operator's client sent (reconcilers, Events, Lease) until all were Running and through the probes,
        // over the Rollouts it started; single_pod_writes: the same for the probes alone, per probe;
        // cpu_s and rss_mib: the operator's process (--deployed, plus its peak RSS) or this JVM (stderr line above).
        System.out.printf("steady_p99_ms=%d api_writes_per_rollout=%.2f metrics_series=%d single_pod_writes=%.2f "
                        + "cpu_s=%.1f rss_mib=%d%s%n", percentile(live, 0.99),
                (double) (burstWrites + writes.total()) / (load.total() + live.size()), series,
                probesRunning == 0 ? -1.0 : (double) probeWrites / probesRunning, jvm.cpuSeconds(), jvm.rssMib(),
                peakRss < 0 ? "" : " rss_peak_mib=" + peakRss);
        if (!complete) {
            System.err.printf("TIMEOUT: only %d of %d rollouts Running after %d s%n", running.size(), load.total(), timeoutSeconds);
        }
        operator.close();
        return complete && placement.gpuOvercommit() == 0 && placement.misplaced() == 0 ? 0 : 1;
    }

    /** GPUs bound beyond a node's capacity, and pods on the wrong kind of node, from the real bindings. */
    record Placement(int gpuOvercommit, int misplaced) {
    }

    static Placement placement(KubernetesClient client, String ns) {
        Map<String, Node> nodes = new HashMap<>();
        client.nodes().list().getItems().forEach(n -> nodes.put(n.getMetadata().getName(), n));
        Map<String, Integer> gpusUsed = new HashMap<>();
        int misplaced = 0;
        for (Pod p : client.pods().inNamespace(ns).list().getItems()) {
            String nodeName = p.getSpec().getNodeName();
            if (nodeName == null) {
                continue;
            }
            int gpus = p.getSpec().getContainers().stream()
                    .map(c -> c.getResources() == null || c.getResources().getLimits() == null ? null
                            : c.getResources().getLimits().get("nvidia.com/gpu"))
                    .filter(q -> q != null).mapToInt(q -> Quantity.getAmountInBytes(q).intValue()).sum();
            Node node = nodes.get(nodeName);
            boolean gpuNode = node != null && FakeNodes.isGpuNode(node);
            if ((gpus > 0) != gpuNode) {
                misplaced++;
            }
            gpusUsed.merge(nodeName, gpus, Integer::sum);
        }
        int over = 0;
        for (var e : gpusUsed.entrySet()) {
            Node node = nodes.get(e.getKey());
            Quantity cap = node == null ? null : node.getStatus().getAllocatable().get("nvidia.com/gpu");
            int capacity = cap == null ? 0 : Quantity.getAmountInBytes(cap).intValue();
            over += Math.max(0, e.getValue() - capacity);
        }
        return new Placement(over, misplaced);
    }

    /**
     * Waits until {@code count} (writes so far) has not moved for 2 s, at most 30 s: the writers are quiet,
     * so a counter read now is the work before, not the tail of it.
     */
    static void settle(String what, java.util.function.LongSupplier count) throws InterruptedException {
        long start = System.nanoTime();
        long last = count.getAsLong();
        long quietSince = start;
        while (System.nanoTime() - quietSince < TimeUnit.SECONDS.toNanos(2)
                && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30)) {
            Thread.sleep(100);
            long now = count.getAsLong();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            }
        }
        System.err.printf("%s settled after %.1f s%n", what, (System.nanoTime() - start) / 1e9);
    }

    static long percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return -1;
        }
        int i = (int) Math.ceil(p * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    /**
     * The control plane the benchmark runs on: the CRDs, kube-scheduler, kwok with its fake nodes, the
     * benchmark's namespace and its three environments. Returns the cluster's client.
     */
    static KubernetesClient prepare(LocalCluster cluster, BenchmarkWorkload load, int cpuNodes, int gpuNodes,
                                    int gpusPerNode) {
        KubernetesClient client = cluster.client();
        CrdInstaller.install(client);
        cluster.startScheduler();
        cluster.startKwok();
        FakeNodes.create(client, cpuNodes, gpuNodes, gpusPerNode);
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(BENCH_NAMESPACE).endMetadata().build()).create();
        BenchmarkObjects.environments(client, BENCH_NAMESPACE, load);
        return client;
    }

    /** Creates the workload's N Rollouts from 16 threads; {@code beforeCreate} gets each name just before its request. */
    static void createAll(KubernetesClient client, BenchmarkWorkload load, int timeoutSeconds,
                          java.util.function.Consumer<String> beforeCreate) throws InterruptedException {
        ExecutorService creators = Executors.newFixedThreadPool(16);
        for (int i = 0; i < load.total(); i++) {
            final int n = i;
            creators.submit(() -> {
                Rollout r = BenchmarkObjects.rollout(client, BENCH_NAMESPACE, BenchmarkObjects.name(n), load.environmentOf(n));
                beforeCreate.accept(BenchmarkObjects.name(n));
                client.resource(r).create();
                return null;
            });
        }
        creators.shutdown();
        creators.awaitTermination(timeoutSeconds, TimeUnit.SECONDS);
    }

    /** Waits (polling each millisecond) until {@code seen} holds {@code key} or the nano clock reaches {@code until}. */
    static boolean awaitKey(Map<String, ?> seen, String key, long until) throws InterruptedException {
        while (!seen.containsKey(key) && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        return seen.containsKey(key);
    }
}
