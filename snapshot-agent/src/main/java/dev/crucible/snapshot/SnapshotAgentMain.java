package dev.crucible.snapshot;

import dev.crucible.snapshot.agent.AgentServer;
import dev.crucible.snapshot.agent.BearerTokenAuth;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.freeze.WatchdogProcess;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.store.RetentionPolicy;
import dev.crucible.snapshot.target.TargetScope;
import dev.crucible.snapshot.tls.AgentServerTls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent process.
 * <pre>
 * SnapshotAgentMain --store DIR --port N --token-file F [--host ADDR] [--workspace-root DIR]…
 *                   [--cgroup-parent DIR] [--keep N] [--ttl-hours H]
 *                   [--scope pods|local] [--rollout-root DIR]… [--hmac-key-file F]
 *                   [--tls-cert F --tls-key F --client-ca F]
 * </pre>
 * {@code --scope pods} (the DaemonSet): only processes in pod cgroups under kubepods, never the
 * agent's own pod. {@code --scope local} (default): trees it started, trees in a {@code crucible}
 * cgroup, or the agent of a live running.json under a {@code --rollout-root}. Without TLS it only
 * listens on loopback.
 * On start it replays the freeze journal (thawing whatever a previous run left frozen) before
 * it accepts calls; on shutdown it aborts (thaws) everything in flight.
 */
public final class SnapshotAgentMain {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotAgentMain.class);

    private SnapshotAgentMain() {
    }

    /** The --kubelet* and --containerd-socket options: all or none (then memory snapshots of containers are refused). */
    static final class RuntimeAccess {
        String kubelet = "127.0.0.1:10250";
        Path trust;
        Path token;
        Path cert;
        Path key;
        Path socket;
        Path ctr = Path.of("ctr");

        dev.crucible.snapshot.container.ContainerRuntime build() {
            if (trust == null && socket == null && token == null && cert == null) return null;
            if (trust == null || socket == null) {
                throw new IllegalArgumentException("--kubelet-trust-file and --containerd-socket go together (memory snapshots of pod containers need both)");
            }
            int colon = kubelet.lastIndexOf(':');
            if (colon <= 0) throw new IllegalArgumentException("--kubelet: expected HOST:PORT, got '" + kubelet + "'");
            String host = kubelet.substring(0, colon).replace("[", "").replace("]", "");
            int port = Integer.parseInt(kubelet.substring(colon + 1));
            var access = new dev.crucible.snapshot.container.KubeletCheckpoints.Access(host, port, trust, token, cert, key);
            return new dev.crucible.snapshot.container.KubeletContainerd(new dev.crucible.snapshot.container.KubeletCheckpoints(access),
                    new dev.crucible.snapshot.container.CtrImages(ctr, socket));
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Path store = null;
        Path tokenFile = null;
        int port = 7077;
        String host = "127.0.0.1";
        int keep = RetentionPolicy.defaults().keepPerGroup();
        long ttlHours = RetentionPolicy.defaults().ttl().toHours();
        EngineBuilder builder = new EngineBuilder();
        String scope = "local";
        java.util.List<Path> rolloutRoots = new java.util.ArrayList<>();
        Path hmacKey = null;
        Path tlsCert = null;
        Path tlsKey = null;
        Path clientCa = null;
        RuntimeAccess runtime = new RuntimeAccess();
        boolean freezeWatchdog = true;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--store" -> store = Path.of(need(a, v));
                case "--port" -> port = Integer.parseInt(need(a, v));
                case "--host" -> host = need(a, v);
                case "--token-file" -> tokenFile = Path.of(need(a, v));
                case "--workspace-root" -> builder.workspaceRoot(Path.of(need(a, v)));
                case "--cgroup-parent" -> builder.cgroupParent(Path.of(need(a, v)));
                case "--keep" -> keep = Integer.parseInt(need(a, v));
                case "--ttl-hours" -> ttlHours = Long.parseLong(need(a, v));
                case "--scope" -> scope = need(a, v);
                case "--rollout-root" -> rolloutRoots.add(Path.of(need(a, v)));
                case "--hmac-key-file" -> hmacKey = Path.of(need(a, v));
                case "--tls-cert" -> tlsCert = Path.of(need(a, v));
                case "--tls-key" -> tlsKey = Path.of(need(a, v));
                case "--client-ca" -> clientCa = Path.of(need(a, v));
                case "--kubelet" -> runtime.kubelet = need(a, v);
                case "--kubelet-trust-file" -> runtime.trust = Path.of(need(a, v));
                case "--kubelet-token-file" -> runtime.token = Path.of(need(a, v));
                case "--kubelet-client-cert" -> runtime.cert = Path.of(need(a, v));
                case "--kubelet-client-key" -> runtime.key = Path.of(need(a, v));
                case "--containerd-socket" -> runtime.socket = Path.of(need(a, v));
                case "--ctr" -> runtime.ctr = Path.of(need(a, v));
                case "--no-freeze-watchdog" -> {
                    freezeWatchdog = false;
                    i--; // a flag: takes no value
                }
                case "-h", "--help" -> {
                    System.out.println("usage: SnapshotAgentMain --store DIR --port N --token-file F [--host ADDR]"
                            + " [--workspace-root DIR]... [--cgroup-parent DIR] [--keep N] [--ttl-hours H]"
                            + " [--scope pods|local] [--rollout-root DIR]... [--hmac-key-file F]"
                            + " [--tls-cert F --tls-key F --client-ca F]"
                            + " [--kubelet HOST:PORT --kubelet-trust-file F (--kubelet-token-file F | --kubelet-client-cert F --kubelet-client-key F)"
                            + " --containerd-socket F [--ctr F]]   (memory snapshots of pod containers)"
                            + " [--no-freeze-watchdog]   (when FreezeLeaseWatchdog runs as a container of its own)");
                    return;
                }
                default -> fail("unknown option " + a);
            }
            i++;
        }
        if (store == null || tokenFile == null) {
            fail("--store and --token-file are required");
        }
        BearerTokenAuth auth = BearerTokenAuth.fromFile(tokenFile);
        switch (scope) {
            case "pods" -> builder.scope(TargetScope.pods());
            case "local" -> builder.scope(TargetScope.localRollouts(rolloutRoots));
            default -> fail("--scope must be 'pods' or 'local', got '" + scope + "'");
        }
        AgentServerTls tls = null;
        if (tlsCert != null || tlsKey != null || clientCa != null) {
            try {
                tls = new AgentServerTls(tlsCert, tlsKey, clientCa);
            } catch (IllegalArgumentException e) {
                fail(e.getMessage());
            }
        }
        try {
            builder.manifestKey(hmacKey != null ? ManifestKey.fromFile(hmacKey) : ManifestKey.localDefault());
        } catch (RuntimeException e) {
            fail("--hmac-key-file: " + e.getMessage());
        }
        try {
            builder.containerRuntime(runtime.build());
        } catch (IllegalArgumentException e) {
            fail(e.getMessage());
        }
        SnapshotEngine engine = builder.store(store).build();
        List<String> recovered = engine.recover();
        // After recovery (which thaws what a previous run left): from here a crash of this JVM is undone
        // by the watchdog within its poll, not when the agent next starts.
        WatchdogProcess watchdog = freezeWatchdog ? new WatchdogProcess(engine.store().journalDir()) : null;
        if (watchdog != null) {
            watchdog.ensureRunning();
        }
        if (engine.criu().isEmpty()) {
            LOG.warn(dev.crucible.snapshot.criu.CriuBinary.MISSING + "; freeze/thaw work, dumps will fail");
        }
        AgentServer server = new AgentServer(engine, auth);
        int bound;
        try {
            bound = server.start(host, port, tls);
        } catch (IllegalArgumentException e) {
            engine.close();
            fail(e.getMessage());
            return;
        }
        RetentionPolicy policy = new RetentionPolicy(keep, Duration.ofHours(ttlHours), RetentionPolicy.defaults().failedTtl());
        ScheduledExecutorService gc = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crucible-snapshot-gc");
            t.setDaemon(true);
            return t;
        });
        gc.scheduleWithFixedDelay(() -> {
            try {
                engine.gc(policy);
            } catch (RuntimeException e) {
                LOG.warn("garbage collection failed: " + e.getMessage());
            }
        }, 10, 10, TimeUnit.MINUTES);
        if (watchdog != null) {
            gc.scheduleWithFixedDelay(watchdog::ensureRunning, 5, 5, TimeUnit.SECONDS);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            engine.close(); // thaws anything still frozen
            server.close();
            if (watchdog != null) {
                watchdog.close();
            }
            stopped.countDown();
        }, "crucible-snapshot-shutdown"));
        // Tests and wrappers read this line to learn the port (with --port 0) and the recovery outcome.
        System.out.println("crucible-snapshot-agent listening on " + host + ":" + bound + " recovered=" + recovered.size()
                + " tls=" + (tls == null ? "off" : "mutual") + " scope=" + scope
                + " freeze-watchdog=" + (watchdog == null ? "off" : watchdog.pid()));
        System.out.flush();
        stopped.await();
    }

    private static String need(String option, String value) {
        if (value == null) {
            fail(option + " needs a value");
        }
        return value;
    }

    private static void fail(String message) {
        System.err.println("snapshot-agent: " + message);
        System.exit(2);
    }
}
