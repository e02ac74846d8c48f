package dev.crucible.e2e.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code --deployed}: the operator as the chart deploys it. The Quarkus fast-jar
 * ({@code operator/target/quarkus-app}) in its own process, with the chart's {@code operator.jvmOptions} in
 * {@code JAVA_TOOL_OPTIONS} and its memory limit as the JVM's physical memory ({@code -XX:MaxRAM}, which
 * a container's cgroup limit would be), the chart's settings in {@code config/application.properties}
 * (all namespaces, leader election, self-signed webhook, snapshot-agent TLS), and the chart's environment
 * (with {@code operator.env}).
 * CPU and RSS are that process's alone; the heap is its {@code jvm_memory_used_bytes{area="heap"}} after a
 * {@code jcmd GC.run}; writes are read from the API server's audit log by the operator's user agent.
 * {@code CRUCIBLE_BENCH_NMT=1} adds Native Memory Tracking and prints its summary at the end.
 */
final class DeployedOperator implements BenchOperator {

    static final String NAMESPACE = "crucible-system";
    /** Set through KUBERNETES_USER_AGENT so the audit log tells the operator from the benchmark's client. */
    static final String USER_AGENT = "crucible-operator-bench";

    private final Process process;
    private final Path work;
    private final int httpPort;
    private final Path auditLog;
    private final String jvm;
    /** HTTP/1.1: Quarkus answered the JDK client's h2c upgrade with GOAWAY under load. */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private Instant writesFrom = Instant.EPOCH;
    private long auditRead;
    private long activity;

    private DeployedOperator(Process process, Path work, int httpPort, Path auditLog, String jvm) {
        this.process = process;
        this.work = work;
        this.httpPort = httpPort;
        this.auditLog = auditLog;
        this.jvm = jvm;
    }

    static DeployedOperator start(LocalCluster cluster, Path repoRoot) throws Exception {
        Path jar = repoRoot.resolve("operator/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " missing: ./mvnw -B -o -pl operator -am install -DskipTests");
        }
        JsonNode operator = new ObjectMapper(new YAMLFactory()).readTree(repoRoot.resolve("helm/crucible/values.yaml").toFile())
                .path("operator");
        // CRUCIBLE_BENCH_JVM_OPTIONS replaces the chart's options, to compare candidates before changing the chart.
        String jvmOptions = System.getenv().getOrDefault("CRUCIBLE_BENCH_JVM_OPTIONS", operator.path("jvmOptions").asText()).trim();
        long limit = Quantity.getAmountInBytes(new Quantity(operator.path("resources").path("limits").path("memory").asText()))
                .longValueExact();
        cluster.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata()
                .build()).create();
        Path work = Files.createDirectories(cluster.workDir().resolve("operator"));
        int httpPort = freePort();
        Files.createDirectories(work.resolve("config"));
        // What the chart's operator-config.yaml renders with its defaults (release "crucible" in NAMESPACE).
        Files.writeString(work.resolve("config/application.properties"), String.join("\n",
                "quarkus.http.port=" + httpPort,
                "quarkus.operator-sdk.namespaces=JOSDK_ALL_NAMESPACES",
                "crucible.leader-election.lease-namespace=" + NAMESPACE,
                "crucible.snapshots.agent-namespace=" + NAMESPACE,
                "crucible.snapshots.agent-selector=app.kubernetes.io/instance=crucible,app.kubernetes.io/component=snapshot-agent",
                "crucible.snapshots.token-file=" + work.resolve("token"),
                "crucible.snapshots.tls-enabled=true",
                "crucible.snapshots.tls-ca-secret=crucible-snapshot-agent-ca",
                "crucible.snapshots.tls-agent-secret=crucible-snapshot-agent-tls",
                "crucible.snapshots.tls-directory=" + work.resolve("snapshot-agent-tls"),
                "crucible.webhook.self-signed.enabled=true",
                "crucible.webhook.self-signed.namespace=" + NAMESPACE,
                "crucible.webhook.self-signed.secret-name=crucible-webhook-selfsigned",
                "crucible.webhook.self-signed.webhook-configuration=crucible",
                "crucible.webhook.self-signed.service-name=crucible-webhook",
                "crucible.webhook.self-signed.port=" + freePort(),
                "crucible.webhook.self-signed.cert-dir=" + work.resolve("webhook"), ""));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:MaxRAM=" + limit));
        if (System.getenv("CRUCIBLE_BENCH_NMT") != null) {
            command.addAll(List.of("-XX:NativeMemoryTracking=summary", "-Xlog:gc:file=" + work.resolve("gc.log")));
        }
        command.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(work.resolve("operator.log").toFile());
        pb.environment().put("KUBECONFIG", cluster.kubeconfig().toString());
        pb.environment().put("KUBERNETES_USER_AGENT", USER_AGENT);
        pb.environment().put("JAVA_TOOL_OPTIONS", jvmOptions);
        operator.path("env").fields().forEachRemaining(e -> pb.environment().put(e.getKey(), e.getValue().asText()));
        pb.environment().put("POD_NAME", "crucible-bench-0");
        pb.environment().put("POD_NAMESPACE", NAMESPACE);
        pb.environment().put("QUARKUS_OPERATOR_SDK_LEADER_ELECTION_ENABLED", "true");
        pb.environment().put("QUARKUS_OPERATOR_SDK_LEADER_ELECTION_LEASE_NAMESPACE", NAMESPACE);
        String jvm = jvmOptions + " -XX:MaxRAM=" + limit + " (the chart's limit " + operator.path("resources").path("limits")
                .path("memory").asText() + ")";
        System.err.println("deployed operator: JAVA_TOOL_OPTIONS=" + jvmOptions + ", env " + operator.path("env") + "; log "
                + work.resolve("operator.log"));
        long t0 = System.nanoTime();
        DeployedOperator op = new DeployedOperator(pb.start(), work, httpPort, cluster.auditLog(), jvm);
        Runtime.getRuntime().addShutdownHook(new Thread(op.process::destroyForcibly));   // also when the benchmark fails
        op.awaitReady(TimeUnit.SECONDS.toNanos(240));
        System.err.printf("deployed operator (pid %d) ready in %.1f s, rss_mib=%d%n", op.process.pid(),
                (System.nanoTime() - t0) / 1e9, ProcessStats.of(op.process.pid()).rssMib());
        return op;
    }

    private void awaitReady(long timeoutNanos) throws InterruptedException {
        long until = System.nanoTime() + timeoutNanos;
        while (System.nanoTime() < until) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the operator exited with " + process.exitValue() + " before it was ready");
            }
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/q/health/ready")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the operator was not ready within " + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s");
    }

    private String scrape() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Sum of the samples of series {@code name} whose labels contain {@code labelPart}. */
    private static double sample(String metrics, String name, String labelPart) {
        return metrics.lines().filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .filter(l -> l.contains(labelPart))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /**
     * Audit lines written since the last call that are not Lease renewals (leader election renews every few
     * seconds, so counting them the writers would never look quiet); read from where the last call stopped.
     */
    @Override
    public long writeActivity() {
        try (var in = new java.io.RandomAccessFile(auditLog.toFile(), "r")) {
            in.seek(auditRead);
            String line;
            while ((line = in.readLine()) != null) {
                activity += line.contains("\"resource\":\"leases\"") ? 0 : 1;
            }
            auditRead = in.getFilePointer();
            return activity;
        } catch (java.io.FileNotFoundException e) {
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public WriteCounter writes() {
        return AuditWrites.read(auditLog, USER_AGENT, writesFrom, Instant.now().plusSeconds(3600)).probes();
    }

    @Override
    public void resetWrites() {
        writesFrom = Instant.now();
    }

    @Override
    public long queueDepth() {
        if (!process.isAlive()) {   // e.g. it lost its Lease on an overloaded API server and stopped, as a pod would
            throw new IllegalStateException("the operator exited with " + process.exitValue() + "; see "
                    + work.resolve("operator.log"));
        }
        try {
            return (long) sample(scrape(), "crucible_reconcile_queue_depth", "");
        } catch (RuntimeException e) {
            return -1;   // a progress line only: a slow or refused scrape must not end the run
        }
    }

    @Override
    public String ownTimings() {
        String m = scrape();
        String h = "crucible_rollout_create_to_pods_milliseconds";
        double count = sample(m, h + "_count", "");
        return String.format("operator-side create->pods (from its first sight, ms clock): mean %.0f ms, max %.0f ms; "
                + "metrics_series=%d", count == 0 ? 0 : sample(m, h + "_sum", "") / count, sample(m, h + "_max", ""),
                metricsSeries());
    }

    @Override
    public long metricsSeries() {
        return scrape().lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
    }

    @Override
    public long heapMib() throws Exception {
        jcmd("GC.run");
        return (long) sample(scrape(), "jvm_memory_used_bytes", "area=\"heap\"") / (1024 * 1024);
    }

    @Override
    public ProcessStats stats() {
        return ProcessStats.of(process.pid());
    }

    @Override
    public long peakRssMib() {
        return ProcessStats.peakRssMib(process.pid());
    }

    @Override
    public String describe() {
        String nmt = System.getenv("CRUCIBLE_BENCH_NMT") == null ? "" : "\n" + jcmd("VM.native_memory", "summary")
                + "\nthreads by name: " + threadsByName() + "\nRSS by mapping (KiB): " + rssByMapping() + "\n" + gcSummary();
        return "the operator's process alone (pid " + process.pid() + ", " + jvm + "); rss_mib after the heap figure's "
                + "full GC=" + stats().rssMib() + nmt;
    }

    /** Resident KiB per mapping name from /proc/PID/smaps (anonymous ones as "anon"), largest first. */
    private String rssByMapping() {
        java.util.Map<String, Long> rss = new java.util.HashMap<>();
        String name = "anon";
        try {
            for (String l : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "smaps"))) {
                String[] f = l.trim().split("\\s+");
                if (f.length >= 5 && f[0].matches("[0-9a-f]+-[0-9a-f]+")) {
                    name = f.length >= 6 ? f[5] : "anon";
                } else if (f[0].equals("Rss:")) {
                    rss.merge(name, Long.parseLong(f[1]), Long::sum);
                }
            }
        } catch (IOException e) {
            return e.toString();
        }
        return rss.entrySet().stream().sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed()).limit(12)
                .map(e -> e.getKey() + "=" + e.getValue()).collect(java.util.stream.Collectors.joining(" "));
    }

    /** GC pauses from the -Xlog:gc file: count and total milliseconds by kind. */
    private String gcSummary() {
        try {
            java.util.Map<String, double[]> byKind = new java.util.TreeMap<>();
            for (String l : Files.readAllLines(work.resolve("gc.log"))) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(Pause \\w+).* ([0-9.]+)ms$").matcher(l);
                if (m.find()) {
                    double[] a = byKind.computeIfAbsent(m.group(1), k -> new double[2]);
                    a[0]++;
                    a[1] += Double.parseDouble(m.group(2));
                }
            }
            return "gc: " + byKind.entrySet().stream().map(e -> String.format("%s n=%d total_ms=%.0f", e.getKey(),
                    (long) e.getValue()[0], e.getValue()[1])).collect(java.util.stream.Collectors.joining(", "));
        } catch (IOException e) {
            return "gc: " + e;
        }
    }

    /** Live threads by name with digits dropped ("vert.x-eventloop-thread-#=2"), most first. */
    private String threadsByName() {
        java.util.Map<String, Long> byName = jcmd("Thread.print").lines().filter(l -> l.startsWith("\""))
                .map(l -> l.substring(1, l.indexOf('"', 1)).replaceAll("[0-9]+", "#"))
                .collect(java.util.stream.Collectors.groupingBy(n -> n, java.util.stream.Collectors.counting()));
        return byName.entrySet().stream().sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey() + "=" + e.getValue()).collect(java.util.stream.Collectors.joining(" "));
    }

    private String jcmd(String... command) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(process.pid())));
        cmd.addAll(List.of(command));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            p.waitFor(60, TimeUnit.SECONDS);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
