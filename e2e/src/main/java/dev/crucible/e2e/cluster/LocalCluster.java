package dev.crucible.e2e.cluster;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubeapitest.KubeAPITestException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real control plane on this machine: etcd + kube-apiserver (Fabric8 kube-api-test, offline), plus
 * kube-scheduler so pods really bind, and kwok so bound pods on fake nodes really run. There is no
 * kube-controller-manager: no garbage collection, no namespace deletion (tests use fresh namespaces).
 */
public final class LocalCluster implements AutoCloseable {

    private final KubeBinaries binaries;
    private final Path workDir;
    private final KubeAPIServer apiServer;
    private final List<Process> processes = new ArrayList<>();
    private final Path kubeconfig;
    private final KubernetesClient client;
    private ControlPlaneRestarts restarts;

    private LocalCluster(KubeBinaries binaries, Path workDir, KubeAPIServer apiServer, Path kubeconfig) {
        this.binaries = binaries;
        this.workDir = workDir;
        this.apiServer = apiServer;
        this.kubeconfig = kubeconfig;
        this.client = newClient();
    }

    /** Starts etcd and kube-apiserver; call {@link #startScheduler()} and {@link #startKwok()} for pods. */
    public static LocalCluster start(KubeBinaries binaries) {
        return start(binaries, List.of());
    }

    /**
     * As {@link #start(KubeBinaries)}, and when {@code auditedNamespace} is not null the API server also
     * writes an audit log ({@link #auditLog()}) of every write into that namespace, one JSON line per
     * request at level Metadata (who, user agent, verb, resource; no bodies), e.g. to count a controller's
     * writes by its user agent. Other namespaces are not logged, so the log costs them nothing.
     */
    public static LocalCluster start(KubeBinaries binaries, String auditedNamespace) {
        return start(binaries, auditedNamespace == null ? List.of() : List.of(auditedNamespace));
    }

    /** As {@link #start(KubeBinaries, String)}, auditing the writes into each of {@code auditedNamespaces}. */
    public static LocalCluster start(KubeBinaries binaries, List<String> auditedNamespaces) {
        try {
            return startOnce(binaries, auditedNamespaces);
        } catch (KubeAPITestException first) {
            // kube-api-test picks etcd's and the API server's ports at random in 49152-65535 (this machine's
            // ephemeral range too) and binds them later: a port taken in between leaves a server that never gets
            // ready (official CI of 3a0992e6: every e2e class errored on one such start). Fresh ports once more.
            System.err.println("LocalCluster: the control plane did not start (" + first.getMessage() + "); trying once more with new ports");
            try {
                return startOnce(binaries, auditedNamespaces);
            } catch (KubeAPITestException second) {
                second.addSuppressed(first);
                throw second;
            }
        }
    }

    private static LocalCluster startOnce(KubeBinaries binaries, List<String> auditedNamespaces) {
        try {
            Path work = Files.createTempDirectory("crucible-cluster-");
            // kube-api-test looks for <testDir>/k8s/<version>-linux-amd64/; a link keeps certs out of the cache.
            Path k8s = Files.createDirectories(work.resolve("k8s"));
            Files.createSymbolicLink(k8s.resolve(binaries.dir().getFileName()), binaries.dir());
            List<String> flags = new ArrayList<>(List.of("--max-requests-inflight=3000", "--max-mutating-requests-inflight=1500"));
            if (!auditedNamespaces.isEmpty()) {
                flags.addAll(auditFlags(work, auditedNamespaces));
            }
            KubeAPIServer server = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
                    .withTestDir(work.toString())
                    .withApiServerVersion(binaries.version())
                    .withOfflineMode(true)
                    .withStartupTimeout(180_000)
                    .withApiServerFlags(flags)
                    .build());
            try {
                server.start();
            } catch (KubeAPITestException e) {
                try {
                    server.stop(); // etcd or the API server may be running: stop both before another try
                } catch (RuntimeException notStarted) {
                    e.addSuppressed(notStarted);
                }
                throw e;
            }
            Path kubeconfig = work.resolve("kubeconfig.yaml");
            Files.writeString(kubeconfig, server.getKubeConfigYaml());
            return new LocalCluster(binaries, work, server, kubeconfig);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> auditFlags(Path work, List<String> namespaces) {
        Path policy = work.resolve("audit-policy.yaml");
        // One event per request (ResponseComplete only); reads and other namespaces: none.
        write(policy, """
                apiVersion: audit.k8s.io/v1
                kind: Policy
                omitStages: [RequestReceived]
                rules:
                - level: Metadata
                  namespaces: [%s]
                  verbs: [create, update, patch, delete, deletecollection]
                - level: None
                """.formatted(String.join(", ", namespaces.stream().map(n -> '"' + n + '"').toList())));
        return List.of("--audit-policy-file=" + policy, "--audit-log-path=" + work.resolve(AUDIT_LOG),
                "--audit-log-format=json");
    }

    private static final String AUDIT_LOG = "audit.log";

    /** The audit log of {@link #start(KubeBinaries, String)} (absent when it was started without one). */
    public Path auditLog() {
        return workDir.resolve(AUDIT_LOG);
    }

    public KubernetesClient client() {
        return client;
    }

    /** A fresh client (its own connection pool), e.g. for an in-process operator. */
    public KubernetesClient newClient() {
        return newClient(null);
    }

    /** A fresh client whose requests also pass {@code interceptor} (null: none), e.g. to count its writes. */
    public KubernetesClient newClient(io.fabric8.kubernetes.client.http.Interceptor interceptor) {
        Config config = Config.fromKubeconfig(readKubeconfig());
        // The benchmark fires thousands of requests; the defaults queue them behind 5 per host.
        config.setMaxConcurrentRequests(512);
        config.setMaxConcurrentRequestsPerHost(512);
        config.setRequestTimeout(60_000);
        KubernetesClientBuilder b = new KubernetesClientBuilder().withConfig(config);
        if (interceptor != null) b.withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("bench", interceptor));
        return b.build();
    }

    public String readKubeconfig() {
        try {
            return Files.readString(kubeconfig);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path kubeconfig() {
        return kubeconfig;
    }

    public void startScheduler() {
        if (!binaries.has("kube-scheduler")) {
            throw new IllegalStateException("kube-scheduler not found in " + binaries.dir()
                    + ": run e2e/scripts/install-kube-binaries.sh");
        }
        Path config = workDir.resolve("scheduler.yaml");
        write(config, """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                clientConnection:
                  kubeconfig: %s
                  qps: 5000
                  burst: 10000
                leaderElection:
                  leaderElect: false
                """.formatted(kubeconfig));
        start("kube-scheduler", List.of(binaries.binary("kube-scheduler").toString(), "--config=" + config,
                "--secure-port=0", "-v=1"));
    }

    public void startKwok() {
        if (!binaries.has("kwok")) {
            throw new IllegalStateException("kwok not found in " + binaries.dir() + ": run e2e/scripts/install-kube-binaries.sh");
        }
        start("kwok", List.of(binaries.binary("kwok").toString(), "--kubeconfig=" + kubeconfig,
                "--manage-all-nodes=false",
                "--manage-nodes-with-label-selector=" + FakeNodes.KWOK_LABEL + "=" + FakeNodes.KWOK_LABEL_VALUE,
                "--cidr=10.64.0.1/12", "--node-ip=10.63.0.1"));
    }

    /**
     * Runs {@code command} beside the control plane (output in {@code <workDir>/<name>.log}); it is
     * stopped with the cluster. Fails when it exits at once.
     */
    public Process startProcess(String name, List<String> command) {
        start(name, command);
        return processes.get(processes.size() - 1);
    }

    private void start(String name, List<String> command) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(workDir.resolve(name + ".log").toFile())
                    .start();
            processes.add(p);
            Thread.sleep(300);
            if (!p.isAlive()) {
                throw new IllegalStateException(name + " exited at once with " + p.exitValue() + "; see "
                        + workDir.resolve(name + ".log") + ":\n" + tail(workDir.resolve(name + ".log")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Kills and restarts kube-apiserver or etcd (fault runs); what it restarts is stopped with the cluster. */
    public synchronized ControlPlaneRestarts restarts() {
        if (restarts == null) {
            restarts = new ControlPlaneRestarts(apiServer, workDir, readKubeconfig());
        }
        return restarts;
    }

    public Path workDir() {
        return workDir;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    private static void write(Path path, String text) {
        try {
            Files.writeString(path, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        client.close();
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (restarts != null) {
            restarts.close();
        }
        apiServer.stop();
    }

    public static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}
