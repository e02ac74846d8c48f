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
import dev.crucible.api.v1alpha1.Rollout;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Fault (issue 41, point 1): kube-apiserver (or etcd) is SIGKILLed twice and started again on the same
 * port and data: once during a burst of N Rollout creations (when a quarter of their pods exist), once
 * while the verifiers' results are written (half of them). The operator (the reconcilers of
 * InProcessOperator, in this JVM) is never touched: what is tested is that it rides out its API
 * server's crash. API-server tier: etcd + kube-apiserver + kube-scheduler + kwok; this program plays
 * the kubelet for the verifier (reward 1 for even Rollouts, 0 for odd ones) and the user who creates
 * the Rollouts (it retries a create the dead server refused; a 409 means its first try got through).
 * Prints: fault=apiserver-restart|etcd-restart rollouts=N lost=… duplicated=… wrong_reward=… stuck=… recovery_s=…
 *   recovery_s: from the second kill to every Rollout terminal (includes the server's own restart).
 * Exit 0 when the four counts are 0, 1 otherwise, 3 when the kube binaries are missing.
 */
public class ControlPlaneRestart {

    static final String NS = "faults";

    public static void main(String[] args) throws Exception {
        int n = 100;
        long timeoutS = 240;
        double downS = 2;
        Component component = Component.KUBE_APISERVER;
        boolean operatorRestarts = true;
        boolean steady = false;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rollouts" -> n = Integer.parseInt(args[i + 1]);
                case "--timeout-s" -> timeoutS = Long.parseLong(args[i + 1]);
                case "--down-s" -> downS = Double.parseDouble(args[i + 1]);
                case "--component" -> component = switch (args[i + 1]) {
                    case "kube-apiserver" -> Component.KUBE_APISERVER;
                    case "etcd" -> Component.ETCD;
                    default -> throw new IllegalArgumentException("--component: kube-apiserver or etcd, not " + args[i + 1]);
                };
                case "--stop-operator-at-second-kill", "--stop-operator-at-last-kill" -> operatorRestarts = !Boolean.parseBoolean(args[i + 1]);
                case "--when" -> steady = switch (args[i + 1]) {
                    case "burst" -> false;
                    case "steady" -> true;
                    default -> throw new IllegalArgumentException("--when: burst or steady, not " + args[i + 1]);
                };
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--rollouts N --timeout-s S --down-s S --component kube-apiserver|etcd --when burst|steady"
                        + " --stop-operator-at-last-kill true|false)");
            }
        }
        KubeBinaries binaries = KubeBinaries.find();
        if (binaries == null) {
            System.err.println("skipped: " + KubeBinaries.MISSING);
            System.exit(3);
        }
        boolean clean = steady ? SteadyStateRestart.run(binaries, n, timeoutS, downS, component, operatorRestarts)
                : run(binaries, n, timeoutS, downS, component, operatorRestarts);
        System.exit(clean ? 0 : 1);
    }

    /** @param keepOperator false stops the operator at the second kill (the check of the check: the counts must show it) */
    static boolean run(KubeBinaries binaries, int n, long timeoutS, double downS, Component component, boolean keepOperator)
            throws Exception {
        String fault = component == Component.ETCD ? "etcd-restart" : "apiserver-restart";
        try (LocalCluster c = LocalCluster.start(binaries)) {
            KubernetesClient k = c.newClient();
            CrdInstaller.install(k);
            c.startScheduler();
            c.startKwok();
            FakeNodes.create(k, 4, 0, 0);
            k.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
            Manifests.environment(k, NS, "calc", "resources: {cpu: 10m, memory: 32Mi}"); // small enough for kwok nodes
            ControlPlaneRestarts restarts = c.restarts();
            InProcessOperator op = new InProcessOperator(c.newClient(),
                    OperatorSettings.defaults().withVerifierImage(OperatorKill.VERIFIER_IMAGE)).start();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            var retries = new java.util.concurrent.atomic.AtomicInteger();
            var kubelet = Executors.newSingleThreadScheduledExecutor();
            kubelet.scheduleWithFixedDelay(kubeletRetry(k, c.workDir().resolve("kwok.log"), retries), 5, 3, TimeUnit.SECONDS);
            try (FaultTally tally = new FaultTally(k, NS)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
                List<Future<?>> created = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String name = "r" + i;
                    created.add(pool.submit(() -> retrying("create " + name, deadline, () -> create(k, name))));
                }
                while (tally.podNames() < Math.max(1, n / 4) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                crash(restarts, component, downS, "during the creation burst (" + tally.podNames() + " of " + n + " pods)");
                for (Future<?> f : created) {
                    f.get();
                }
                awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase == PhaseName.Running, deadline);

                List<Future<?>> results = new ArrayList<>();
                Future<?> secondCrash = null;
                long lastKill = 0;
                for (int i = 0; i < n; i++) {
                    int idx = i;
                    double reward = idx % 2 == 0 ? 1.0 : 0.0;
                    String json = "{\"reward\":" + reward + ",\"verdict\":\"" + (reward > 0 ? "pass" : "fail") + "\",\"turns\":1}";
                    results.add(pool.submit(() -> retrying("result of r" + idx, deadline,
                            () -> Manifests.verifierExits(k, NS, "r" + idx + "-main-0", json))));
                    if (i == n / 2) {
                        lastKill = System.nanoTime();
                        String when = "while results are written (" + i + " of " + n + ")";
                        if (!keepOperator) {
                            op.close();
                            when += "; the operator stopped for good";
                        }
                        String w = when;
                        secondCrash = pool.submit(() -> crash(restarts, component, downS, w));
                    }
                }
                secondCrash.get();
                for (Future<?> f : results) {
                    f.get();
                }
                awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase != null && r.getStatus().phase.isTerminal(), deadline);
                double recoveryS = (System.nanoTime() - lastKill) / 1e9;
                FaultTally.Counts counts = tally.count(n, i -> i % 2 == 0 ? 1.0 : 0.0);
                System.out.println(FaultTally.line(fault, n, counts, recoveryS) + " kubelet_retries=" + retries.get());
                return counts.clean();
            } finally {
                kubelet.shutdownNow();
                pool.shutdownNow();
                op.close();
            }
        }
    }

    /**
     * The kubelet's status retry, which kwok lacks: kwok 0.7 applies a pod's "pod-ready" stage once, and
     * when that patch fails (the API server answered Unavailable while its etcd restarted) the pod stays
     * bound and Pending for good; a real kubelet's status manager syncs again. So a pod that kwok's log
     * names in "failed to apply stage" and that still has no container status gets an annotation, a
     * watch event on which kwok plays its stage again. Only those pods are touched; nothing of the
     * operator's is.
     */
    static Runnable kubeletRetry(KubernetesClient k, java.nio.file.Path kwokLog, java.util.concurrent.atomic.AtomicInteger retries) {
        java.util.regex.Pattern failed = java.util.regex.Pattern.compile(
                "\"msg\":\"failed to apply stage\".*?\"pod\":\"" + NS + "/([^\"]+)\"");
        return () -> {
            try {
                java.util.Set<String> named = new java.util.HashSet<>();
                for (String line : java.nio.file.Files.readAllLines(kwokLog)) {
                    var m = failed.matcher(line);
                    if (m.find()) {
                        named.add(m.group(1));
                    }
                }
                for (String name : named) {
                    var p = k.pods().inNamespace(NS).withName(name).get();
                    var st = p == null ? null : p.getStatus();
                    boolean started = st != null && st.getContainerStatuses() != null && !st.getContainerStatuses().isEmpty();
                    if (p == null || started || p.getSpec().getNodeName() == null) {
                        continue;
                    }
                    k.pods().inNamespace(NS).withName(name).edit(x -> {
                        if (x.getMetadata().getAnnotations() == null) {
                            x.getMetadata().setAnnotations(new java.util.HashMap<>());
                        }
                        x.getMetadata().getAnnotations().put("faults.crucible.dev/kubelet-retry", Integer.toString(retries.incrementAndGet()));
                        return x;
                    });
                    System.err.println("kubelet retry: " + name + " bound to " + p.getSpec().getNodeName()
                            + ", never started: kwok's stage patch failed");
                }
            } catch (java.io.IOException | RuntimeException e) {
                // no log yet, or the server is down: next round
            }
        };
    }

    /** SIGKILL, {@code downS} seconds down, then the same command line again; logs the times. */
    static Void crash(ControlPlaneRestarts restarts, Component component, double downS, String when) {
        restarts.kill9(component);
        System.err.println(component + " SIGKILLed " + when);
        FaultTally.sleep((long) (downS * 1000));
        double readyS = restarts.start(component, Duration.ofSeconds(180));
        System.err.printf("%s started again after %.1f s down, ready in %.1f s%n", component, downS, readyS);
        return null;
    }

    static void create(KubernetesClient k, String name) {
        try {
            Manifests.rollout(k, NS, name, "calc", "");
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) { // 409: an earlier try was stored, its answer lost with the server
                throw e;
            }
        }
    }

    /** Runs {@code action} until it succeeds or {@code deadline}: what a client of a restarting API server does. */
    static Void retrying(String what, long deadline, Runnable action) {
        for (int attempt = 0; ; attempt++) {
            try {
                action.run();
                return null;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    System.err.println("gave up: " + what + ": " + e.getMessage());
                    return null; // counted as lost or stuck
                }
                FaultTally.sleep(Math.min(2_000, 100L << Math.min(attempt, 5)));
            }
        }
    }

    static void awaitAll(KubernetesClient k, int n, Predicate<Rollout> done, long deadline) throws InterruptedException {
        while (System.nanoTime() < deadline) {
            try {
                List<Rollout> all = k.resources(Rollout.class).inNamespace(NS).list().getItems();
                if (all.size() >= n && all.stream().allMatch(done)) {
                    return;
                }
            } catch (KubernetesClientException e) {
                // the server is restarting: look again
            }
            Thread.sleep(500);
        }
    }
}
