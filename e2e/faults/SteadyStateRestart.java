import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.cluster.ControlPlaneRestarts;
import dev.crucible.e2e.cluster.ControlPlaneRestarts.Component;
import dev.crucible.e2e.cluster.CrdInstaller;
import dev.crucible.e2e.cluster.FakeNodes;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fault (issue 41, point 1, "during steady state"): `control-plane-restart --when steady`. All N Rollouts
 * are created and Running and nothing is in flight (no creation, no result) when kube-apiserver (or etcd)
 * is SIGKILLed once, left down, and started again on the same port and data. Half of the Rollouts had
 * their verifiers' results before the crash (terminal already: they must stay as they are); the other
 * half get theirs only once the server is back, so they end only if the operator's watches came back
 * after a quiet outage. The operator (in this JVM) is never touched, unless --stop-operator-at-last-kill
 * true stops it at the kill (the check of the check: that half must be reported stuck).
 * Prints: fault=apiserver-restart-steady|etcd-restart-steady rollouts=N lost=… duplicated=… wrong_reward=… stuck=… recovery_s=…
 *   recovery_s: from the kill to every Rollout terminal (the server's own restart included).
 */
final class SteadyStateRestart {

    private SteadyStateRestart() {
    }

    static boolean run(KubeBinaries binaries, int n, long timeoutS, double downS, Component component, boolean keepOperator)
            throws Exception {
        String fault = (component == Component.ETCD ? "etcd" : "apiserver") + "-restart-steady";
        String ns = ControlPlaneRestart.NS;
        try (LocalCluster c = LocalCluster.start(binaries)) {
            KubernetesClient k = c.newClient();
            CrdInstaller.install(k);
            c.startScheduler();
            c.startKwok();
            FakeNodes.create(k, 4, 0, 0);
            k.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
            Manifests.environment(k, ns, "calc", "resources: {cpu: 10m, memory: 32Mi}"); // small enough for kwok nodes
            ControlPlaneRestarts restarts = c.restarts();
            InProcessOperator op = new InProcessOperator(c.newClient(),
                    OperatorSettings.defaults().withVerifierImage(OperatorKill.VERIFIER_IMAGE)).start();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            AtomicInteger retries = new AtomicInteger();
            var kubelet = Executors.newSingleThreadScheduledExecutor();
            kubelet.scheduleWithFixedDelay(ControlPlaneRestart.kubeletRetry(k, c.workDir().resolve("kwok.log"), retries), 5, 3, TimeUnit.SECONDS);
            try (FaultTally tally = new FaultTally(k, ns)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
                List<Future<?>> created = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String name = "r" + i;
                    created.add(pool.submit(() -> ControlPlaneRestart.create(k, name)));
                }
                for (Future<?> f : created) {
                    f.get();
                }
                ControlPlaneRestart.awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase == PhaseName.Running, deadline);
                int half = n / 2;
                results(k, pool, 0, half, deadline);
                ControlPlaneRestart.awaitAll(k, n, r -> Integer.parseInt(r.getMetadata().getName().substring(1)) >= half
                        || r.getStatus() != null && r.getStatus().phase != null && r.getStatus().phase.isTerminal(), deadline);

                long kill = System.nanoTime();
                String when = "in steady state (" + (n - half) + " of " + n + " Rollouts Running, " + half + " terminal, nothing in flight)";
                if (!keepOperator) {
                    op.close();
                    when += "; the operator stopped for good";
                }
                ControlPlaneRestart.crash(restarts, component, downS, when);
                results(k, pool, half, n, deadline);
                ControlPlaneRestart.awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase != null && r.getStatus().phase.isTerminal(), deadline);
                double recoveryS = (System.nanoTime() - kill) / 1e9;
                FaultTally.Counts counts = tally.count(n, i -> i % 2 == 0 ? 1.0 : 0.0);
                System.out.println(FaultTally.line(fault, n, counts, recoveryS) + " down_s=" + downS + " kubelet_retries=" + retries.get());
                return counts.clean();
            } finally {
                kubelet.shutdownNow();
                pool.shutdownNow();
                op.close();
            }
        }
    }

    /** The kubelet reports the verifier of r{from}..r{to-1}: reward 1 for even Rollouts, 0 for odd ones. */
    private static void results(KubernetesClient k, ExecutorService pool, int from, int to, long deadline) throws Exception {
        List<Future<?>> written = new ArrayList<>();
        for (int i = from; i < to; i++) {
            int idx = i;
            double reward = idx % 2 == 0 ? 1.0 : 0.0;
            String json = "{\"reward\":" + reward + ",\"verdict\":\"" + (reward > 0 ? "pass" : "fail") + "\",\"turns\":1}";
            written.add(pool.submit(() -> ControlPlaneRestart.retrying("result of r" + idx, deadline,
                    () -> Manifests.verifierExits(k, ControlPlaneRestart.NS, "r" + idx + "-main-0", json))));
        }
        for (Future<?> f : written) {
            f.get();
        }
    }
}
