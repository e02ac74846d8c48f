package dev.crucible.e2e.bench;

import dev.crucible.e2e.cluster.CrdInstaller;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The peer: kubernetes-sigs/agent-sandbox's Sandbox controller (built by e2e/scripts/install-agent-sandbox.sh),
 * run as a subprocess on the cluster Crucible's run just used — same API server, kube-scheduler and kwok
 * nodes — with Crucible's pods deleted first, so both start from an empty namespace. It gets the same load
 * shape: N Sandboxes created from 16 threads, each with the pod spec of one of Crucible's single-pod CPU
 * Rollout pods (so the pods are the same size), then {@link ControlPlaneBenchmark#PROBES} created one at a
 * time with N live. A Sandbox counts as running when its Ready condition is True (the controller saw its
 * pod Running and Ready and its Service exist), as a Rollout does at phase Running.
 * <p>
 * Its writes are counted from the API server's audit log of the peer's namespace (level Metadata, one
 * line per write request, answered or not, like Crucible's client-side {@link WriteCounter}), keeping the
 * lines whose user agent is the controller's binary name (client-go's default user agent).
 */
final class PeerSandboxRun {

    static final String NAMESPACE = "peer";
    /** Names the installed peer's directory when it is not under the cache ({@code --peer DIR} does the same). */
    static final String ENV = "CRUCIBLE_PEER_DIR";
    private static final String BINARY = "agent-sandbox-controller";
    private static final ResourceDefinitionContext SANDBOXES = new ResourceDefinitionContext.Builder()
            .withGroup("agents.x-k8s.io").withVersion("v1alpha1").withPlural("sandboxes").withKind("Sandbox")
            .withNamespaced(true).build();

    private final Path dir;
    private final String label;

    private PeerSandboxRun(Path dir, String label) {
        this.dir = dir;
        this.label = label;
    }

    /** The installed peer ({@code dirArg}, else {@code $CRUCIBLE_PEER_DIR}, else the newest in the cache), or null. */
    static PeerSandboxRun find(String dirArg) {
        String named = dirArg != null ? dirArg : System.getenv(ENV);
        Path dir = named != null && !named.isBlank() ? Path.of(named) : newestInCache();
        if (dir == null || !Files.isExecutable(dir.resolve(BINARY)) || !Files.isRegularFile(dir.resolve("VERSION"))) {
            System.err.println("peer: agent-sandbox is not installed" + (dir == null ? "" : " in " + dir)
                    + "; run e2e/scripts/install-agent-sandbox.sh (or pass --peer DIR) to measure it beside Crucible");
            return null;
        }
        try {
            // VERSION holds "agent-sandbox=v0.1.1"; the lines carry it as "agent-sandbox-v0.1.1".
            return new PeerSandboxRun(dir, Files.readString(dir.resolve("VERSION")).strip().replace('=', '-'));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Path newestInCache() {
        String cache = System.getenv("CRUCIBLE_CACHE");
        Path root = (cache == null || cache.isBlank() ? Path.of(System.getProperty("user.home"), ".cache", "crucible")
                : Path.of(cache)).resolve("agent-sandbox");
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("v"))
                    .max(Comparator.comparing(d -> d.getFileName().toString())).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Runs the peer with {@code n} Sandboxes whose pod spec is that of the pod of Rollout {@code templateRollout}
     * in {@code crucibleNs}; prints its two lines. Returns the exit status (0: all Running, none misplaced).
     */
    int run(LocalCluster cluster, String crucibleNs, String templateRollout, int n, int timeoutSeconds) throws Exception {
        KubernetesClient client = cluster.client();
        PodSpec template = template(client, crucibleNs, templateRollout);
        clearPods(client, crucibleNs);
        CrdInstaller.install(client, dir.resolve("crds/agents.x-k8s.io_sandboxes.yaml"));
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
        int metricsPort = freePort();
        // As shipped (no flags in its manifest) but for the kubeconfig, a free metrics port, no health probes.
        Process controller = cluster.startProcess(BINARY, List.of(dir.resolve(BINARY).toString(),
                "--kubeconfig=" + cluster.kubeconfig(), "--metrics-bind-address=127.0.0.1:" + metricsPort,
                "--health-probe-bind-address=0"));
        awaitWorkers(cluster.workDir().resolve(BINARY + ".log"), controller);

        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Map<String, Long> podSeenAt = new ConcurrentHashMap<>();
        Map<String, Long> readyAt = new ConcurrentHashMap<>();
        // The controller names a Sandbox's pod after the Sandbox.
        SharedIndexInformer<Pod> podWatch = client.pods().inNamespace(NAMESPACE).inform(
                onAdd(p -> podSeenAt.putIfAbsent(p.getMetadata().getName(), System.nanoTime())));
        SharedIndexInformer<GenericKubernetesResource> sandboxWatch = client.genericKubernetesResources(SANDBOXES)
                .inNamespace(NAMESPACE).inform(onAddOrUpdate(s -> {
                    if (ready(s)) {
                        readyAt.putIfAbsent(s.getMetadata().getName(), System.nanoTime());
                    }
                }));
        Map<String, Object> podTemplate = Map.of("spec", client.getKubernetesSerialization().convertValue(template, Map.class));

        ExecutorService creators = Executors.newFixedThreadPool(16);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            String name = BenchmarkObjects.name(i);
            creators.submit(() -> {
                GenericKubernetesResource s = sandbox(name, podTemplate);
                sentAt.put(name, System.nanoTime());
                client.genericKubernetesResources(SANDBOXES).inNamespace(NAMESPACE).resource(s).create();
                return null;
            });
        }
        creators.shutdown();
        creators.awaitTermination(timeoutSeconds, TimeUnit.SECONDS);
        System.err.printf("peer: created %d Sandboxes in %.1f s%n", n, (System.nanoTime() - start) / 1e9);
        long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        long lastReport = 0;
        while (readyAt.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(100);
            if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(5)) {
                lastReport = System.nanoTime();
                System.err.printf("  peer t=%.0fs pods=%d ready=%d%n", (lastReport - start) / 1e9, podSeenAt.size(), readyAt.size());
            }
        }
        boolean complete = readyAt.size() == n;
        double allRunningSeconds = ((complete ? readyAt.values().stream().mapToLong(Long::longValue).max().orElse(start)
                : System.nanoTime()) - start) / 1e9;

        // One new Sandbox at a time with N live, each until Ready; the audit lines in this window are the probes'.
        // Settled first: each Ready status update brings one more reconcile (and a pod update) after it.
        ControlPlaneBenchmark.settle("peer: writes in its namespace", () -> size(cluster.auditLog()));
        List<Long> live = new ArrayList<>();
        int probesReady = 0;
        Instant probesFrom = Instant.now();
        for (int i = 0; complete && i < ControlPlaneBenchmark.PROBES; i++) {
            String probe = "probe-" + i;
            long sent = System.nanoTime();
            client.genericKubernetesResources(SANDBOXES).inNamespace(NAMESPACE).resource(sandbox(probe, podTemplate)).create();
            long until = sent + TimeUnit.SECONDS.toNanos(30);
            if (ControlPlaneBenchmark.awaitKey(podSeenAt, probe, until)) {
                live.add(TimeUnit.NANOSECONDS.toMillis(podSeenAt.get(probe) - sent));
            }
            probesReady += ControlPlaneBenchmark.awaitKey(readyAt, probe, until) ? 1 : 0;
        }
        ControlPlaneBenchmark.settle("peer: writes after the probes", () -> size(cluster.auditLog()));
        Instant probesUntil = Instant.now();
        live.sort(Long::compare);

        ProcessStats stats = ProcessStats.of(controller.pid());
        String metrics = scrape(metricsPort);
        long series = metrics.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
        String heapMetric = heapMetric(metrics);
        long heapMib = (long) value(metrics, heapMetric) / (1024 * 1024);
        ControlPlaneBenchmark.Placement placement = ControlPlaneBenchmark.placement(client, NAMESPACE);
        podWatch.close();
        sandboxWatch.close();
        // Stopped before the audit log is read, so that every write it sent is in it.
        controller.destroy();
        controller.waitFor(10, TimeUnit.SECONDS);
        AuditWrites writes = AuditWrites.read(cluster.auditLog(), BINARY + "/", probesFrom, probesUntil);

        List<Long> latencies = new ArrayList<>();
        sentAt.forEach((name, sent) -> {
            Long seen = podSeenAt.get(name);
            if (seen != null) {
                latencies.add(TimeUnit.NANOSECONDS.toMillis(seen - sent));
            }
        });
        latencies.sort(Long::compare);
        System.err.printf("peer: live_create_to_pods (one new Sandbox at a time, %d live): p50_ms=%d p99_ms=%d%n", n,
                ControlPlaneBenchmark.percentile(live, 0.5), ControlPlaneBenchmark.percentile(live, 0.99));
        System.err.println("peer: controller writes, all: " + writes.all().breakdown() + "; refused: "
                + (writes.refused().total() == 0 ? "none" : writes.refused().breakdown()));
        System.err.printf("peer: controller writes for %d probe Sandboxes (each until Ready): %s; of them to "
                + "objects named probe-*: %d%n", probesReady, writes.probes().breakdown(), writes.probeNamed());
        System.err.printf("peer: controller process (pid %d): cpu_s=%.1f since it started, rss_mib=%d; heap: %s from its "
                + "/metrics; log %s%n", controller.pid(), stats.cpuSeconds(), stats.rssMib(), heapMetric,
                cluster.workDir().resolve(BINARY + ".log"));
        String prefix = "peer=" + label + " ";
        System.out.printf("%srollouts=%d create_to_pods_p50_ms=%d create_to_pods_p99_ms=%d all_running_s=%.1f "
                        + "operator_heap_mib=%d gpu_overcommit=%d misplaced=%d%n", prefix, n,
                ControlPlaneBenchmark.percentile(latencies, 0.50), ControlPlaneBenchmark.percentile(latencies, 0.99),
                allRunningSeconds, heapMib, placement.gpuOvercommit(), placement.misplaced());
        System.out.printf("%ssteady_p99_ms=%d api_writes_per_rollout=%.2f metrics_series=%d single_pod_writes=%.2f "
                        + "cpu_s=%.1f rss_mib=%d%n", prefix, ControlPlaneBenchmark.percentile(live, 0.99),
                (double) writes.all().total() / (n + live.size()), series,
                probesReady == 0 ? -1.0 : (double) writes.probes().total() / probesReady, stats.cpuSeconds(), stats.rssMib());
        if (!complete) {
            System.err.printf("peer: TIMEOUT: only %d of %d Sandboxes Ready after %d s%n", readyAt.size(), n, timeoutSeconds);
        }
        return complete && placement.gpuOvercommit() == 0 && placement.misplaced() == 0 ? 0 : 1;
    }

    /** The pod spec Crucible gave the Rollout's pod, minus its binding. */
    private static PodSpec template(KubernetesClient client, String ns, String rollout) {
        List<Pod> pods = client.pods().inNamespace(ns).withLabel("crucible.dev/rollout", rollout).list().getItems();
        if (pods.size() != 1) {
            throw new IllegalStateException("expected one pod of Rollout " + rollout + ", found " + pods.size());
        }
        PodSpec spec = pods.get(0).getSpec();
        spec.setNodeName(null);
        System.err.printf("peer: pod template from %s/%s: %d containers, %d init containers, %d volumes%n", ns,
                pods.get(0).getMetadata().getName(), spec.getContainers().size(),
                spec.getInitContainers() == null ? 0 : spec.getInitContainers().size(),
                spec.getVolumes() == null ? 0 : spec.getVolumes().size());
        return spec;
    }

    /** Deletes Crucible's pods (at once: grace 0) so that the peer starts from as empty a cluster as Crucible did. */
    private static void clearPods(KubernetesClient client, String ns) throws InterruptedException {
        client.pods().inNamespace(ns).withGracePeriod(0).delete();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!client.pods().inNamespace(ns).list().getItems().isEmpty() && System.nanoTime() < until) {
            Thread.sleep(500);
        }
    }

    private static GenericKubernetesResource sandbox(String name, Map<String, Object> podTemplate) {
        return new GenericKubernetesResourceBuilder().withApiVersion("agents.x-k8s.io/v1alpha1").withKind("Sandbox")
                .withNewMetadata().withName(name).withNamespace(NAMESPACE).endMetadata()
                .addToAdditionalProperties("spec", Map.of("podTemplate", podTemplate)).build();
    }

    @SuppressWarnings("unchecked")
    private static boolean ready(GenericKubernetesResource sandbox) {
        Object status = sandbox.getAdditionalProperties().get("status");
        if (!(status instanceof Map<?, ?> s) || !(s.get("conditions") instanceof List<?> conditions)) {
            return false;
        }
        return conditions.stream().map(c -> (Map<String, Object>) c)
                .anyMatch(c -> "Ready".equals(c.get("type")) && "True".equals(c.get("status")));
    }

    /** The controller's workers start once its caches have synced: then it is as ready as Crucible's started operator. */
    private static void awaitWorkers(Path log, Process controller) throws IOException, InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < until && controller.isAlive()) {
            if (Files.exists(log) && Files.readString(log).contains("Starting workers")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("agent-sandbox controller did not start its workers; see " + log);
    }

    /** The live heap after the last GC when the Go runtime exports it, else the allocated heap (live + garbage). */
    private static String heapMetric(String metrics) {
        return value(metrics, "go_gc_heap_live_bytes") >= 0 ? "go_gc_heap_live_bytes" : "go_memstats_heap_alloc_bytes";
    }

    private static double value(String metrics, String name) {
        return metrics.lines().filter(l -> l.startsWith(name + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(name.length() + 1).strip())).findFirst().orElse(-1);
    }

    private static String scrape(int port) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static <T> ResourceEventHandler<T> onAdd(java.util.function.Consumer<T> f) {
        return handler(f, o -> { });
    }

    private static <T> ResourceEventHandler<T> onAddOrUpdate(java.util.function.Consumer<T> f) {
        return handler(f, f);
    }

    private static <T> ResourceEventHandler<T> handler(java.util.function.Consumer<T> added, java.util.function.Consumer<T> updated) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                added.accept(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                updated.accept(newObj);
            }

            @Override
            public void onDelete(T obj, boolean unknown) {
            }
        };
    }
}
