package dev.crucible.e2e.bench;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.e2e.cluster.CrdInstaller;
import dev.crucible.e2e.cluster.FakeNodes;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code e2e/bench/control-plane --warm-pool}: on a real kube-apiserver + kube-scheduler + kwok, the operator
 * in-process, for each rate (claims a second) it creates N interactive Rollouts of an environment with a warm
 * pool, then N of the same environment without one (the cold peer, same run, same rate), and prints per rate:
 * {@code rate=… claims=… claim_to_agent_running_p50_ms=… p99_ms=… cold_p50_ms=… cold_p99_ms=… pool_hit_ratio=… refill_writes_per_claim=…}.
 * No container runs on this tier: "agent running" is the Rollout's Running phase seen by a watch, i.e. its pod
 * bound and reported Running by kwok (for a warm start: the claimed pod, Running before the claim). Latency is
 * from just before the create request. Refill writes are the operator's writes for the pool: pool pods created
 * and deleted, the environment's status (not the shared objects written once per environment version); the claim
 * itself (one pod patch) is not a refill write.
 */
public final class WarmPoolBenchmark {

    private WarmPoolBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int claims = 100;
        List<Integer> rates = List.of(10, 100);
        int poolMin = 20;
        int poolMax = 100;
        int refill = 20;
        int cpuNodes = 20;
        int timeoutSeconds = 300;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--warm-pool" -> { }
                case "--claims" -> claims = Integer.parseInt(args[++i]);
                case "--rates" -> rates = java.util.Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--pool-min" -> poolMin = Integer.parseInt(args[++i]);
                case "--pool-max" -> poolMax = Integer.parseInt(args[++i]);
                case "--refill-per-second" -> refill = Integer.parseInt(args[++i]);
                case "--cpu-nodes" -> cpuNodes = Integer.parseInt(args[++i]);
                case "--timeout-seconds" -> timeoutSeconds = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: control-plane --warm-pool [--claims 100] [--rates 10,100] [--pool-min 20] "
                            + "[--pool-max 100] [--refill-per-second 20] [--cpu-nodes 20] [--timeout-seconds 300]");
                    System.exit(2);
                }
            }
        }
        KubeBinaries binaries = KubeBinaries.find();
        if (binaries == null) {
            System.err.println(KubeBinaries.MISSING);
            System.exit(2);
        }
        int exit = 0;
        try (LocalCluster cluster = LocalCluster.start(binaries)) {
            KubernetesClient client = cluster.client();
            CrdInstaller.install(client);
            cluster.startScheduler();
            cluster.startKwok();
            FakeNodes.create(client, cpuNodes, 0, 0);
            WriteCounter writes = new WriteCounter();
            try (InProcessOperator operator = new InProcessOperator(cluster.newClient(writes), OperatorSettings.defaults()).start()) {
                for (int rate : rates) {
                    Phase warm = phase(client, "warm-" + rate, "warmPool: {min: %d, max: %d, refillPerSecond: %d}"
                            .formatted(poolMin, poolMax, refill), poolMin, claims, rate, timeoutSeconds, writes);
                    Phase cold = phase(client, "cold-" + rate, null, 0, claims, rate, timeoutSeconds, writes);
                    if (warm.running.size() < claims || cold.running.size() < claims) {
                        System.err.printf("rate=%d: only %d warm-phase and %d cold Rollouts reached Running within %d s%n",
                                rate, warm.running.size(), cold.running.size(), timeoutSeconds);
                        exit = 1;
                    }
                    List<Long> hits = warm.latencies(true);
                    List<Long> colds = cold.latencies(false);
                    System.err.printf("rate=%d warm-phase writes: %s%n", rate, warm.breakdown);
                    System.out.printf("rate=%d claims=%d claim_to_agent_running_p50_ms=%d p99_ms=%d cold_p50_ms=%d cold_p99_ms=%d "
                                    + "pool_hit_ratio=%.2f refill_writes_per_claim=%.2f%n", rate, claims,
                            ControlPlaneBenchmark.percentile(hits, 0.50), ControlPlaneBenchmark.percentile(hits, 0.99),
                            ControlPlaneBenchmark.percentile(colds, 0.50), ControlPlaneBenchmark.percentile(colds, 0.99),
                            (double) hits.size() / claims, (double) warm.refillWrites / Math.max(1, hits.size()));
                }
            }
        }
        System.exit(exit);
    }

    /** One rate's Rollouts in their own namespace: the latency of each, warm or cold, and the pool's writes. */
    private record Phase(Map<String, Long> running, Map<String, Boolean> warm, long refillWrites, String breakdown) {
        List<Long> latencies(boolean warmOnly) {
            List<Long> l = new ArrayList<>();
            running.forEach((name, ms) -> {
                if (!warmOnly || Boolean.TRUE.equals(warm.get(name))) l.add(ms);
            });
            l.sort(null);
            return l;
        }
    }

    private static Phase phase(KubernetesClient client, String ns, String pool, int poolReady, int claims, int rate,
                               int timeoutSeconds, WriteCounter writes) throws Exception {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
        client.resource(client.getKubernetesSerialization().unmarshal("""
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata: {name: env, namespace: %s}
                spec:
                  image: example/env:1
                  task: {prompt: fix the bug}
                  verifier: {type: test-suite, framework: pytest, command: pytest -q, protectedPaths: ["tests/**"]}
                  sandbox: {runtimeClassName: gvisor}
                  resources: {cpu: 100m, memory: 128Mi}
                """.formatted(ns) + (pool == null ? "" : "  " + pool + "\n"), RLEnvironment.class)).create();
        long until = System.currentTimeMillis() + timeoutSeconds * 1000L;
        if (poolReady > 0) {
            while (ready(client, ns) < poolReady) {
                if (System.currentTimeMillis() > until) throw new IllegalStateException(ns + ": the pool never filled");
                Thread.sleep(100);
            }
        }
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Map<String, Long> running = new ConcurrentHashMap<>();
        Map<String, Boolean> warm = new ConcurrentHashMap<>();
        AtomicInteger poolPodsMade = new AtomicInteger();
        SharedIndexInformer<Rollout> watch = client.resources(Rollout.class).inNamespace(ns).inform(new ResourceEventHandler<>() {
            public void onAdd(Rollout r) { check(r); }
            public void onUpdate(Rollout o, Rollout r) { check(r); }
            public void onDelete(Rollout r, boolean unknown) { }

            private void check(Rollout r) {
                Long sent = sentAt.get(r.getMetadata().getName());
                if (sent != null && r.getStatus() != null && r.getStatus().phase == PhaseName.Running) {
                    if (running.putIfAbsent(r.getMetadata().getName(), (System.nanoTime() - sent) / 1_000_000) == null) {
                        warm.put(r.getMetadata().getName(), "Warm".equals(r.getStatus().start));
                    }
                }
            }
        });
        SharedIndexInformer<Pod> pods = client.pods().inNamespace(ns).withLabel("crucible.dev/warm-pool").inform(new ResourceEventHandler<>() {
            public void onAdd(Pod p) { poolPodsMade.incrementAndGet(); }
            public void onUpdate(Pod o, Pod p) { }
            public void onDelete(Pod p, boolean unknown) { }
        });
        while (!pods.hasSynced()) Thread.sleep(10);
        int before = poolPodsMade.get(); // the pool's first fill is set-up, not refill
        writes.reset();
        ScheduledExecutorService creators = Executors.newScheduledThreadPool(16);
        long periodMicros = 1_000_000L / rate;
        for (int i = 0; i < claims; i++) {
            String name = String.format("ro-%04d", i);
            creators.schedule(() -> {
                sentAt.put(name, System.nanoTime());
                client.resource(client.getKubernetesSerialization().unmarshal("""
                        apiVersion: crucible.dev/v1alpha1
                        kind: Rollout
                        metadata: {name: %s, namespace: %s}
                        spec: {environmentRef: {name: env}, mode: interactive, limits: {maxDurationSeconds: 86400}}
                        """.formatted(name, ns), Rollout.class)).create();
            }, i * periodMicros, TimeUnit.MICROSECONDS);
        }
        long start = System.currentTimeMillis();
        long nextSample = start;
        while (running.size() < claims && System.currentTimeMillis() < until) {
            if (pool != null && System.currentTimeMillis() >= nextSample) {
                // the pool as its status says, twice a second: how refill follows the claims (stderr)
                RLEnvironment e = client.resources(RLEnvironment.class).inNamespace(ns).withName("env").get();
                var w = e == null || e.getStatus() == null ? null : e.getStatus().warmPool;
                System.err.printf("%s t=%dms running=%d pool: %s%n", ns, System.currentTimeMillis() - start, running.size(),
                        w == null ? "-" : "ready=" + w.ready + " starting=" + w.starting + " claimed=" + w.claimed + " target=" + w.target);
                nextSample += 500;
            }
            Thread.sleep(50);
        }
        creators.shutdownNow();
        Thread.sleep(2000); // the refill that the claims set off, within the rate limit
        watch.close();
        pods.close();
        // The environment goes (and its pool with it), so its refill does not run into the next rate's figures.
        client.resources(RLEnvironment.class).inNamespace(ns).withName("env").delete();
        // The shared objects (ConfigMap, egress policy, token) are left out: the pool writes them once per environment
        // version, and the cold Rollouts write the same kinds, which this client-side count cannot tell apart.
        long poolWrites = (poolPodsMade.get() - before) + writes.writesMatching("rlenvironments") + writes.writesMatching("DELETE pods");
        return new Phase(running, warm, pool == null ? 0 : poolWrites, writes.breakdown());
    }

    private static int ready(KubernetesClient client, String ns) {
        RLEnvironment e = client.resources(RLEnvironment.class).inNamespace(ns).withName("env").get();
        return e == null || e.getStatus() == null || e.getStatus().warmPool == null || e.getStatus().warmPool.ready == null
                ? 0 : e.getStatus().warmPool.ready;
    }
}
