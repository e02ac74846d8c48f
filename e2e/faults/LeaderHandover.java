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
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Fault (issue 41, point 1): two operator replicas with leader election, as the chart runs them (2
 * replicas, one Lease; each replica its own JVM with the reconcilers of InProcessOperator and the Lease
 * settings OperatorBeans gives the SDK), N Rollouts Running, and the leader SIGKILLed (no release of
 * the Lease: it must expire). Half of the Rollouts got their verifiers' results before the kill; the
 * other half get theirs right after it, so their status can only be written by the new leader.
 * The API server's audit log (user agent per replica) says who wrote what and when:
 *   handover_s: from the kill to the first status write of the new leader (the Lease's expiry included);
 *   lease_s: from the kill to the new leader's write of the Lease;
 *   standby_writes: writes into the Rollouts' namespace by the replica that was not leading, before the
 *   kill (must be 0: a standby that reconciles would create pods twice).
 * Prints: fault=leader-handover rollouts=N lost=… duplicated=… wrong_reward=… stuck=… recovery_s=… handover_s=… lease_s=… standby_writes=…
 * Checks of the check: --leader-election false (both replicas reconcile: standby_writes must be > 0) and
 * --standby false (no second replica: the Rollouts must be reported stuck).
 * Exit 0 when all counts are 0, 1 otherwise, 3 when the kube binaries are missing.
 */
public class LeaderHandover {

    static final String NS = "faults";
    static final String LEASE_NS = "crucible-system";
    /** The chart's Lease name (crucible.leader-election.lease-name's default). */
    static final String LEASE = "crucible-operator-leader";
    static final String AGENT = "crucible-operator/";

    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("--replica")) {
            runReplica(Path.of(args[1]), args[2], Boolean.parseBoolean(args[3]));
            return;
        }
        int n = 20;
        long timeoutS = 240;
        boolean election = true;
        boolean standby = true;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rollouts" -> n = Integer.parseInt(args[i + 1]);
                case "--timeout-s" -> timeoutS = Long.parseLong(args[i + 1]);
                case "--leader-election" -> election = Boolean.parseBoolean(args[i + 1]);
                case "--standby" -> standby = Boolean.parseBoolean(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--rollouts N --timeout-s S --leader-election true|false --standby true|false)");
            }
        }
        KubeBinaries binaries = KubeBinaries.find();
        if (binaries == null) {
            System.err.println("skipped: " + KubeBinaries.MISSING);
            System.exit(3);
        }
        System.exit(run(binaries, n, timeoutS, election, standby) ? 0 : 1);
    }

    static boolean run(KubeBinaries binaries, int n, long timeoutS, boolean election, boolean withStandby) throws Exception {
        try (LocalCluster c = LocalCluster.start(binaries, List.of(NS, LEASE_NS))) {
            KubernetesClient k = c.newClient();
            CrdInstaller.install(k);
            c.startScheduler();
            c.startKwok();
            FakeNodes.create(k, 4, 0, 0);
            for (String ns : List.of(NS, LEASE_NS)) {
                k.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
            }
            Manifests.environment(k, NS, "calc", "resources: {cpu: 10m, memory: 32Mi}"); // small enough for kwok nodes
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Replica> replicas = new ArrayList<>();
            try (FaultTally tally = new FaultTally(k, NS)) {
                replicas.add(Replica.launch(c.kubeconfig(), "replica-a", election));
                if (withStandby) {
                    replicas.add(Replica.launch(c.kubeconfig(), "replica-b", election));
                }
                for (Replica r : replicas) {
                    r.awaitStarted(Duration.ofSeconds(180));
                }
                String leaderId = election ? awaitLeaseHolder(k, Duration.ofSeconds(60)) : "replica-a";
                Replica leader = replicas.stream().filter(r -> r.id.equals(leaderId)).findFirst().orElseThrow(
                        () -> new IllegalStateException("the Lease names " + leaderId + ", not a replica of this run"));
                Replica standby = replicas.stream().filter(r -> r != leader).findFirst().orElse(null);
                System.err.println("leader: " + leaderId + (standby == null ? ", no standby" : ", standby: " + standby.id));
                Instant bothUp = Instant.now();

                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
                List<Future<?>> created = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String name = "r" + i;
                    created.add(pool.submit(() -> Manifests.rollout(k, NS, name, "calc", "")));
                }
                for (Future<?> f : created) {
                    f.get();
                }
                OperatorKill.awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase == PhaseName.Running, deadline);
                int half = n / 2;
                results(k, pool, 0, half);
                OperatorKill.awaitAll(k, n, r -> Integer.parseInt(r.getMetadata().getName().substring(1)) >= half
                        || r.getStatus() != null && r.getStatus().phase != null && r.getStatus().phase.isTerminal(), deadline);

                OperatorKill.kill9(leader.process, "(the leader, " + leader.id + ") with " + (n - half) + " of " + n + " Rollouts Running");
                Instant killedAt = Instant.now();
                long killNanos = System.nanoTime();
                results(k, pool, half, n);
                OperatorKill.awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase != null && r.getStatus().phase.isTerminal(), deadline);
                double recoveryS = (System.nanoTime() - killNanos) / 1e9;
                FaultTally.Counts counts = tally.count(n, i -> i % 2 == 0 ? 1.0 : 0.0);

                WriteAudit audit = WriteAudit.read(c.auditLog());
                int standbyWrites = 0;
                String handover = "none";
                String lease = "none";
                if (standby != null) {
                    List<WriteAudit.Write> early = audit.by(AGENT + standby.id, NS, bothUp, killedAt);
                    standbyWrites = early.size();
                    early.stream().limit(5).forEach(w -> System.err.println("standby write before the kill: " + w));
                    WriteAudit.Write status = audit.first(AGENT + standby.id, "rollouts/status", killedAt);
                    WriteAudit.Write leased = audit.first(AGENT + standby.id, "leases", killedAt);
                    handover = status == null ? "none" : seconds(killedAt, status.at());
                    lease = leased == null ? "none" : seconds(killedAt, leased.at());
                }
                System.out.println(FaultTally.line("leader-handover", n, counts, recoveryS) + " handover_s=" + handover
                        + " lease_s=" + lease + " standby_writes=" + standbyWrites + (election ? "" : " leader_election=false"));
                return counts.clean() && standbyWrites == 0;
            } finally {
                pool.shutdownNow();
                replicas.forEach(r -> r.process.destroyForcibly());
            }
        }
    }

    private static String seconds(Instant from, Instant to) {
        return String.format(Locale.ROOT, "%.1f", Duration.between(from, to).toMillis() / 1000.0);
    }

    /** The kubelet reports the verifier of r{from}..r{to-1} (reward 1 for even Rollouts, 0 for odd ones). */
    private static void results(KubernetesClient k, ExecutorService pool, int from, int to) throws Exception {
        List<Future<?>> written = new ArrayList<>();
        for (int i = from; i < to; i++) {
            int idx = i;
            double reward = idx % 2 == 0 ? 1.0 : 0.0;
            written.add(pool.submit(() -> Manifests.verifierExits(k, NS, "r" + idx + "-main-0",
                    "{\"reward\":" + reward + ",\"verdict\":\"" + (reward > 0 ? "pass" : "fail") + "\",\"turns\":1}")));
        }
        for (Future<?> f : written) {
            f.get();
        }
    }

    private static String awaitLeaseHolder(KubernetesClient k, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            var lease = k.leases().inNamespace(LEASE_NS).withName(LEASE).get();
            if (lease != null && lease.getSpec().getHolderIdentity() != null) {
                return lease.getSpec().getHolderIdentity();
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no replica took the Lease " + LEASE_NS + "/" + LEASE + " in " + timeout.toSeconds() + " s");
    }

    /** One replica: the reconcilers in their own JVM, so kill -9 is a real crash (no Lease release). */
    static void runReplica(Path kubeconfig, String id, boolean election) throws Exception {
        Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
        config.setMaxConcurrentRequests(256);
        config.setMaxConcurrentRequestsPerHost(256);
        config.setUserAgent(AGENT + id); // the audit log tells the replicas apart by it
        // Two replicas and the control plane start at once on a loaded machine: the client's 10 s to
        // connect made an informer's first list fail, and the SDK then stops the operator at start-up.
        config.setConnectionTimeout(60_000);
        config.setRequestTimeout(60_000);
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
        // The SDK's defaults for the Lease's timings, as OperatorBeans#leaderElection configures the deployed operator.
        new InProcessOperator(client, OperatorSettings.defaults().withVerifierImage(OperatorKill.VERIFIER_IMAGE), null,
                o -> {
                    if (election) {
                        o.withLeaderElectionConfiguration(new LeaderElectionConfiguration(LEASE, LEASE_NS, id));
                    }
                }, null).start();
        System.out.println("replica started");
        System.out.flush();
        Thread.currentThread().join();
    }

    /** A replica's JVM and its log (FAULTS_LOG's name + "." + id). */
    record Replica(String id, Process process, Path log) {

        static Replica launch(Path kubeconfig, String id, boolean election) throws Exception {
            Path base = Path.of(System.getProperty("faults.log", "/tmp/leader-handover.log"));
            Path log = base.resolveSibling(base.getFileName() + "." + id);
            Files.deleteIfExists(log);
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process p = new ProcessBuilder(java, "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "-cp", System.getProperty("java.class.path"), LeaderHandover.class.getName(), "--replica",
                    kubeconfig.toString(), id, Boolean.toString(election))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            return new Replica(id, p, log);
        }

        void awaitStarted(Duration timeout) throws Exception {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline && process.isAlive()) {
                if (Files.exists(log) && Files.readString(log).contains("replica started")) {
                    return;
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException(id + " did not start" + (process.isAlive() ? " in " + timeout.toSeconds() + " s"
                    : ", exit " + process.exitValue()) + " (see " + log + ")");
        }
    }
}
