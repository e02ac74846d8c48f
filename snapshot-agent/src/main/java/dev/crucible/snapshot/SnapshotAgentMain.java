package dev.crucible.snapshot;

import dev.crucible.snapshot.agent.AgentServer;
import dev.crucible.snapshot.agent.BearerTokenAuth;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.store.RetentionPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The node agent process.
 * <pre>
 * SnapshotAgentMain --store DIR --port N --token-file F [--host ADDR] [--workspace-root DIR]…
 *                   [--cgroup-parent DIR] [--keep N] [--ttl-hours H]
 * </pre>
 * On start it replays the freeze journal (thawing whatever a previous run left frozen) before
 * it accepts calls; on shutdown it aborts (thaws) everything in flight.
 */
public final class SnapshotAgentMain {

    private static final Logger LOG = Logger.getLogger(SnapshotAgentMain.class.getName());

    private SnapshotAgentMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path store = null;
        Path tokenFile = null;
        int port = 7077;
        String host = "127.0.0.1";
        int keep = RetentionPolicy.defaults().keepPerGroup();
        long ttlHours = RetentionPolicy.defaults().ttl().toHours();
        EngineBuilder builder = new EngineBuilder();
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
                case "-h", "--help" -> {
                    System.out.println("usage: SnapshotAgentMain --store DIR --port N --token-file F [--host ADDR]"
                            + " [--workspace-root DIR]... [--cgroup-parent DIR] [--keep N] [--ttl-hours H]");
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
        SnapshotEngine engine = builder.store(store).build();
        List<String> recovered = engine.recover();
        if (engine.criu().isEmpty()) {
            LOG.warning(dev.crucible.snapshot.criu.CriuBinary.MISSING + "; freeze/thaw work, dumps will fail");
        }
        AgentServer server = new AgentServer(engine, auth);
        int bound = server.start(host, port);
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
                LOG.warning("garbage collection failed: " + e.getMessage());
            }
        }, 10, 10, TimeUnit.MINUTES);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            engine.close(); // thaws anything still frozen
            server.close();
            stopped.countDown();
        }, "crucible-snapshot-shutdown"));
        // Tests and wrappers read this line to learn the port (with --port 0) and the recovery outcome.
        System.out.println("crucible-snapshot-agent listening on " + host + ":" + bound + " recovered=" + recovered.size());
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
