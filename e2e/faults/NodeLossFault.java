import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.environment.EnvironmentStatistics;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.cluster.CrdInstaller;
import dev.crucible.e2e.cluster.FakeNodes;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Fault (issue 41, point 2, "Nodes"): a kwok node deleted under running CPU, GPU and gang Rollouts. Rollout rI is
 * a CPU rollout (i % 3 == 0, one pod), a 1-GPU rollout (1) or a gang of two 1-GPU members (2), on 2 CPU nodes and
 * 8-GPU nodes. When all run, the CPU node and the GPU node under the most kinds of them, then the most pods, are
 * deleted; the real kube-controller-manager's pod garbage collector (its only controller here) removes their
 * pods as in a cluster (DisruptionTarget/DeletionByPodGC, Failed, force-deleted, after its 40 s quarantine).
 * Every Rollout not hit gets its verifier's result at once (reward 1 for even, 0 for odd).
 * Expected: each hit Rollout ends Failed/NodeLost with no reward, the others with their reward; no member is
 * created again; every pod, so every GPU, is released (gpus_held: GPUs still asked by pods left after all ended);
 * and the RLEnvironments' statistics count the hit ones as infrastructure failures, not unsolved attempts
 * (counted_unsolved). The operator (in this JVM) is never touched, unless --stop-operator-at-loss true stops it
 * at the deletion (the check of the check: the counts must fail).
 * Prints: fault=node-loss rollouts=N lost=… duplicated=… wrong_reward=… stuck=… recovery_s=… wrong_reason=…
 *   node_lost=… via_lookup=… hit=cpu:…,gpu:…,gang:… split_gangs=… gpus_held=… counted_unsolved=… nodes=…
 *   recovery_s: from the deletion to every Rollout terminal (PodGC's quarantine included).
 * Exit 0 when every count is 0, 1 otherwise, 3 when the kube binaries are missing.
 */
public class NodeLossFault {

    static final String NS = ControlPlaneRestart.NS;
    private static final String[] KINDS = {"cpu", "gpu", "gang"};

    public static void main(String[] args) throws Exception {
        int n = 12;
        long timeoutS = 240;
        boolean keepOperator = true;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rollouts" -> n = Integer.parseInt(args[i + 1]);
                case "--timeout-s" -> timeoutS = Long.parseLong(args[i + 1]);
                case "--stop-operator-at-loss" -> keepOperator = !Boolean.parseBoolean(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--rollouts N --timeout-s S --stop-operator-at-loss true|false)");
            }
        }
        if (n < 3) {
            throw new IllegalArgumentException("--rollouts: at least 3 (one CPU, one GPU, one gang), not " + n);
        }
        KubeBinaries binaries = KubeBinaries.find();
        if (binaries == null || !binaries.has("kube-controller-manager")) {
            System.err.println("skipped: " + (binaries == null ? KubeBinaries.MISSING
                    : "kube-controller-manager not found in " + binaries.dir() + ": run e2e/scripts/install-kube-binaries.sh"));
            System.exit(3);
        }
        System.exit(run(binaries, n, timeoutS, keepOperator) ? 0 : 1);
    }

    static String kind(int i) {
        return KINDS[i % 3];
    }

    static boolean run(KubeBinaries binaries, int n, long timeoutS, boolean keepOperator) throws Exception {
        try (LocalCluster c = LocalCluster.start(binaries)) {
            KubernetesClient k = c.newClient();
            CrdInstaller.install(k);
            c.startScheduler();
            c.startKwok();
            // PodGC only: what removes the pods of a deleted node in a cluster (no other controller is wanted here)
            c.startProcess("kube-controller-manager", List.of(binaries.binary("kube-controller-manager").toString(),
                    "--kubeconfig=" + c.kubeconfig(), "--controllers=pod-garbage-collector-controller",
                    "--leader-elect=false", "--secure-port=0", "-v=2"));
            int gpus = (n + 2) / 3 + 2 * (n / 3); // one per GPU rollout, two per gang
            FakeNodes.create(k, 2, Math.max(3, gpus / 6 + 1), 8);
            k.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
            Manifests.environment(k, NS, "cpu", "resources: {cpu: 10m, memory: 32Mi}"); // small enough for kwok nodes
            Manifests.environment(k, NS, "gpu", "resources: {cpu: 10m, memory: 32Mi, gpus: 1}");
            Manifests.environment(k, NS, "gang", """
                    resources: {cpu: 10m, memory: 32Mi}
                    topology:
                      gangTimeoutSeconds: 120
                      roles:
                        - name: trainer
                          replicas: 2
                          gpusPerReplica: 1
                    """);
            InProcessOperator op = new InProcessOperator(c.newClient(),
                    OperatorSettings.defaults().withVerifierImage(OperatorKill.VERIFIER_IMAGE)).start();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try (FaultTally tally = new FaultTally(k, NS)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
                List<Future<?>> created = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String name = "r" + i, env = kind(i);
                    created.add(pool.submit(() -> Manifests.rollout(k, NS, name, env, "")));
                }
                for (Future<?> f : created) {
                    f.get();
                }
                ControlPlaneRestart.awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase == PhaseName.Running, deadline);

                List<Pod> pods = k.pods().inNamespace(NS).list().getItems();
                List<String> victims = List.of(victim(pods, "cpu-"), victim(pods, "gpu-"));
                Map<Integer, Set<String>> nodesOf = new TreeMap<>();
                for (Pod p : pods) {
                    nodesOf.computeIfAbsent(index(p), x -> new TreeSet<>()).add(String.valueOf(p.getSpec().getNodeName()));
                }
                Set<Integer> hit = nodesOf.entrySet().stream().filter(e -> e.getValue().stream().anyMatch(victims::contains))
                        .map(Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
                long splitGangs = nodesOf.entrySet().stream().filter(e -> hit.contains(e.getKey()) && e.getValue().size() > 1).count();

                long loss = System.nanoTime();
                if (!keepOperator) {
                    op.close();
                }
                for (String node : victims) {
                    k.nodes().withName(node).delete();
                }
                System.err.println("deleted nodes " + victims + " under " + hit.size() + " of " + n + " Rollouts " + hit
                        + (keepOperator ? "" : "; the operator stopped for good"));
                List<Future<?>> written = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if (hit.contains(i)) {
                        continue;
                    }
                    int idx = i;
                    double reward = idx % 2 == 0 ? 1.0 : 0.0;
                    String json = "{\"reward\":" + reward + ",\"verdict\":\"" + (reward > 0 ? "pass" : "fail") + "\",\"turns\":1}";
                    String leader = "r" + idx + (kind(idx).equals("gang") ? "-trainer-0" : "-main-0");
                    written.add(pool.submit(() -> ControlPlaneRestart.retrying("result of r" + idx, deadline,
                            () -> Manifests.verifierExits(k, NS, leader, json))));
                }
                for (Future<?> f : written) {
                    f.get();
                }
                ControlPlaneRestart.awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase != null && r.getStatus().phase.isTerminal(), deadline);
                double recoveryS = (System.nanoTime() - loss) / 1e9;
                FaultTally.Counts counts = tally.countEach(n, i -> hit.contains(i)
                        ? FaultTally.Expected.ended(kind(i).equals("gang") ? 2 : 1, PhaseName.Failed, "NodeLost")
                        : FaultTally.Expected.reward(kind(i).equals("gang") ? 2 : 1, i % 2 == 0 ? 1.0 : 0.0));
                int gpusHeld = gpusHeld(k, Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
                int countedUnsolved = countedUnsolved(k, n, hit, Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
                List<Rollout> ended = k.resources(Rollout.class).inNamespace(NS).list().getItems().stream()
                        .filter(r -> r.getStatus() != null && "NodeLost".equals(r.getStatus().reason)).toList();
                // told by the pod's node being gone (its pod seen only deleted), not by PodGC's mark on the pod
                long viaLookup = ended.stream().filter(r -> r.getStatus().message != null && r.getStatus().message.endsWith("went with it")).count();
                String hitByKind = java.util.Arrays.stream(KINDS).map(kd -> kd + ":" + hit.stream().filter(i -> kind(i).equals(kd)).count())
                        .collect(Collectors.joining(","));
                System.out.println(FaultTally.line("node-loss", n, counts, recoveryS) + " wrong_reason=" + counts.wrongReason()
                        + " node_lost=" + ended.size() + "/" + hit.size() + " via_lookup=" + viaLookup + " hit=" + hitByKind + " split_gangs=" + splitGangs
                        + " gpus_held=" + gpusHeld + " counted_unsolved=" + countedUnsolved + " nodes=" + String.join(",", victims));
                return counts.clean() && gpusHeld == 0 && countedUnsolved == 0;
            } finally {
                pool.shutdownNow();
                op.close();
            }
        }
    }

    /** The rollout index of a member pod rI-…. */
    private static int index(Pod p) {
        String name = p.getMetadata().getName();
        return Integer.parseInt(name.substring(1, name.indexOf('-')));
    }

    /** The node named {@code prefix}… under the most kinds of Rollout (CPU, GPU, gang), then the most pods. */
    private static String victim(List<Pod> pods, String prefix) {
        Map<String, Set<String>> kinds = new TreeMap<>();
        Map<String, Integer> count = new TreeMap<>();
        for (Pod p : pods) {
            String node = p.getSpec().getNodeName();
            if (node != null && node.startsWith(prefix)) {
                kinds.computeIfAbsent(node, x -> new TreeSet<>()).add(kind(index(p)));
                count.merge(node, 1, Integer::sum);
            }
        }
        return kinds.keySet().stream().max(Comparator.<String>comparingInt(node -> kinds.get(node).size())
                .thenComparingInt(count::get)).orElseThrow(() -> new IllegalStateException("no pod on a node named " + prefix + "*"));
    }

    /** GPUs still asked by the namespace's pods, once none is left or at {@code until}. */
    private static int gpusHeld(KubernetesClient k, long until) {
        while (true) {
            List<Pod> left = k.pods().inNamespace(NS).list().getItems();
            int held = 0;
            for (Pod p : left) {
                for (var ct : p.getSpec().getContainers()) {
                    Map<String, Quantity> limits = ct.getResources() == null ? null : ct.getResources().getLimits();
                    Quantity q = limits == null ? null : limits.get("nvidia.com/gpu");
                    held += q == null ? 0 : Integer.parseInt(q.getAmount());
                }
            }
            if (left.isEmpty() || System.nanoTime() > until) {
                left.forEach(p -> System.err.println("left: pod " + p.getMetadata().getName() + " on " + p.getSpec().getNodeName()
                        + " phase " + (p.getStatus() == null ? null : p.getStatus().getPhase())
                        + (p.getMetadata().getDeletionTimestamp() == null ? "" : " deleting")));
                return held;
            }
            FaultTally.sleep(500);
        }
    }

    /**
     * The hit Rollouts that an RLEnvironment's statistics count as attempts (finished, unsolved) instead of
     * infrastructure failures, once the statistics have seen every Rollout of it terminal (or at {@code until});
     * a solve rate other than the one of the Rollouts not hit is logged.
     */
    private static int countedUnsolved(KubernetesClient k, int n, Set<Integer> hit, long until) {
        while (true) {
            int unsolved = 0;
            boolean current = true;
            List<String> notes = new ArrayList<>();
            for (String env : KINDS) {
                List<Integer> mine = java.util.stream.IntStream.range(0, n).filter(i -> kind(i).equals(env)).boxed().toList();
                long hitHere = mine.stream().filter(hit::contains).count();
                List<Integer> ran = mine.stream().filter(i -> !hit.contains(i)).toList();
                Double want = ran.isEmpty() ? null : Math.round(10000.0 * ran.stream().filter(i -> i % 2 == 0).count() / ran.size()) / 10000.0;
                RLEnvironment e = k.resources(RLEnvironment.class).inNamespace(NS).withName(env).get();
                EnvironmentStatistics s = e == null || e.getStatus() == null ? null : e.getStatus().statistics;
                boolean seen = s != null && s.rollouts != null && s.rollouts == mine.size() && s.running != null && s.running == 0
                        && (s.succeeded == null ? 0 : s.succeeded) + (s.failed == null ? 0 : s.failed) == mine.size();
                current &= seen;
                int infra = s == null || s.infrastructureFailures == null ? 0 : s.infrastructureFailures;
                unsolved += (int) Math.max(0, hitHere - infra);
                if (!java.util.Objects.equals(want, s == null ? null : s.solveRate)) {
                    notes.add("statistics of " + env + ": solveRate " + (s == null ? null : s.solveRate) + " expected " + want
                            + " (infrastructureFailures " + infra + " of " + hitHere + " hit" + (seen ? ")" : "; not current yet)"));
                }
            }
            if (current || System.nanoTime() > until) {
                notes.forEach(System.err::println);
                return unsolved;
            }
            FaultTally.sleep(500);
        }
    }
}
