import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.cluster.CrdInstaller;
import dev.crucible.e2e.cluster.FakeNodes;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Fault (issue 41, point 1): the operator is SIGKILLed (a separate JVM, kill -9) twice: during a burst
 * of N Rollout creations, and again while the verifiers' results come in (status writes in flight).
 * The API-server tier: real etcd + kube-apiserver + kube-scheduler + kwok; the test plays the kubelet
 * by writing each verifier container's result (reward 1 for even rollouts, 0 for odd ones).
 * Prints: fault=operator-sigkill rollouts=N lost=… duplicated=… wrong_reward=… stuck=… recovery_s=…
 *   lost: a Rollout that never got a pod or whose object is gone; duplicated: a member pod name that
 *   was created more than once (two UIDs) or more pods than planned; wrong_reward: a terminal Rollout
 *   whose status.reward is not the one its verifier wrote; stuck: not terminal when the run gives up;
 *   recovery_s: from the second SIGKILL (a new operator JVM started at once) to every Rollout terminal.
 * Exit 0 when lost = duplicated = wrong_reward = stuck = 0, 1 otherwise, 3 when the binaries are missing.
 */
public class OperatorKill {

    static final String NS = "faults";
    static final String VERIFIER_IMAGE = "crucible/verifier:test";

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--operator")) {
            runOperator(Path.of(args[1]));
            return;
        }
        int n = 100;
        long timeoutS = 240;
        boolean restart = true;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rollouts" -> n = Integer.parseInt(args[i + 1]);
                case "--timeout-s" -> timeoutS = Long.parseLong(args[i + 1]);
                case "--restart-after-second-kill" -> restart = Boolean.parseBoolean(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--rollouts N --timeout-s S --restart-after-second-kill true|false)");
            }
        }
        KubeBinaries binaries = KubeBinaries.find();
        if (binaries == null) {
            System.err.println("skipped: " + KubeBinaries.MISSING);
            System.exit(3);
        }
        System.exit(run(binaries, n, timeoutS, restart) ? 0 : 1);
    }

    /** @param restart false leaves the cluster without an operator after the second kill: the counts must then show it */
    static boolean run(KubeBinaries binaries, int n, long timeoutS, boolean restart) throws Exception {
        Files.deleteIfExists(Path.of(System.getProperty("faults.log", "/tmp/operator-kill-operator.log")));
        try (LocalCluster c = LocalCluster.start(binaries)) {
            KubernetesClient k = c.newClient();
            CrdInstaller.install(k);
            c.startScheduler();
            c.startKwok();
            FakeNodes.create(k, 4, 0, 0);
            k.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
            Manifests.environment(k, NS, "calc", "resources: {cpu: 10m, memory: 32Mi}"); // small enough for kwok nodes

            FaultTally tally = new FaultTally(k, NS);
            Process op = startOperator(c.kubeconfig());
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<java.util.concurrent.Future<?>> created = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String name = "r" + i;
                created.add(pool.submit(() -> Manifests.rollout(k, NS, name, "calc", "")));
            }
            // killed once it has created a quarter of the pods: creations and status writes are in flight
            long burstEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
            while (tally.podNames() < Math.max(1, n / 4) && System.nanoTime() < burstEnd) {
                Thread.sleep(20);
            }
            op = kill9AndRestart(op, c.kubeconfig(), "during the creation burst (" + tally.podNames() + " of " + n + " pods created)");
            for (var f : created) {
                f.get();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
            awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase == PhaseName.Running, deadline);

            // the verifiers' results come in; the operator dies half-way through writing the outcomes
            List<java.util.concurrent.Future<?>> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int idx = i;
                results.add(pool.submit(() -> {
                    try {
                        double reward = idx % 2 == 0 ? 1.0 : 0.0;
                        Manifests.verifierExits(k, NS, "r" + idx + "-main-0",
                                "{\"reward\":" + reward + ",\"verdict\":\"" + (reward > 0 ? "pass" : "fail") + "\",\"turns\":1}");
                    } catch (RuntimeException e) { // no pod to report on: counted as lost or stuck below
                        System.err.println("no result written for r" + idx + ": " + e.getMessage());
                    }
                }));
                if (i == n / 2) {
                    String when = "while results are written (" + i + " of " + n + ")";
                    if (restart) {
                        op = kill9AndRestart(op, c.kubeconfig(), when);
                    } else {
                        kill9(op, when + "; not restarted");
                    }
                }
            }
            long restarted = lastKill;
            for (var f : results) {
                f.get();
            }
            awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase != null && r.getStatus().phase.isTerminal(), deadline);
            double recoveryS = (System.nanoTime() - restarted) / 1e9;

            FaultTally.Counts counts = tally.count(n, i -> i % 2 == 0 ? 1.0 : 0.0);
            tally.close();
            op.destroyForcibly();
            pool.shutdownNow();
            System.out.println(FaultTally.line("operator-sigkill", n, counts, recoveryS));
            return counts.clean();
        }
    }

    /** The operator as its own JVM, so kill -9 is a real crash: no shutdown hook, no graceful close. */
    static void runOperator(Path kubeconfig) throws Exception {
        Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
        config.setMaxConcurrentRequests(256);
        config.setMaxConcurrentRequestsPerHost(256);
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
        new InProcessOperator(client, OperatorSettings.defaults().withVerifierImage(VERIFIER_IMAGE)).start();
        System.out.println("operator started");
        System.out.flush();
        Thread.currentThread().join();
    }

    static int starts;
    static volatile long lastKill;

    /** Starts an operator JVM and waits until it has started its controllers (its log says so). */
    static Process startOperator(Path kubeconfig) throws Exception {
        Path log = Path.of(System.getProperty("faults.log", "/tmp/operator-kill-operator.log"));
        Process p = launchOperator(kubeconfig);
        starts++;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline && p.isAlive()) {
            if (Files.exists(log) && Files.readString(log).split("operator started", -1).length - 1 >= starts) {
                return p;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("operator did not start" + (p.isAlive() ? " in 180 s" : ", exit " + p.exitValue())
                + " (see " + log + ")");
    }

    static Process launchOperator(Path kubeconfig) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), OperatorKill.class.getName(), "--operator", kubeconfig.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(Path.of(System.getProperty(
                        "faults.log", "/tmp/operator-kill-operator.log")).toFile())).start();
        return p;
    }

    static Process kill9AndRestart(Process op, Path kubeconfig, String when) throws Exception {
        kill9(op, when);
        return startOperator(kubeconfig);
    }

    static void kill9(Process op, String when) throws Exception {
        new ProcessBuilder("kill", "-9", Long.toString(op.pid())).inheritIO().start().waitFor();
        lastKill = System.nanoTime();
        op.waitFor(10, TimeUnit.SECONDS);
        System.err.println("operator pid " + op.pid() + " SIGKILLed " + when);
    }

    static void awaitAll(KubernetesClient k, int n, java.util.function.Predicate<Rollout> done, long deadline) throws InterruptedException {
        while (System.nanoTime() < deadline) {
            List<Rollout> all = k.resources(Rollout.class).inNamespace(NS).list().getItems();
            if (all.size() >= n && all.stream().allMatch(done)) {
                return;
            }
            Thread.sleep(500);
        }
    }
}
