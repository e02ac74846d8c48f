package dev.crucible.probe;

import dev.crucible.probe.model.Device;
import dev.crucible.probe.serve.BatchingOptions;
import dev.crucible.probe.serve.PortInUseException;
import dev.crucible.probe.serve.ProbeHttpServer;
import dev.crucible.probe.serve.ProbeScorer;
import dev.crucible.probe.serve.ServerLimits;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Entry point: {@code ProbeServerMain --model DIR [--port 8080] [--host 127.0.0.1]
 * [--device auto|cpu|cuda] [--token-budget 8192] [--max-wait-ms 2] [--max-request-bytes N]
 * [--max-items N] [--max-turns N] [--max-chars-per-turn N] [--max-request-tokens N]
 * [--max-concurrent N]}. DIR holds probe.json (see {@link dev.crucible.probe.model.ProbeSpec}), so a
 * mounted ConfigMap/volume is all it needs. It listens on loopback unless told otherwise (the
 * cluster's Deployment passes {@code --host 0.0.0.0}). A bad option or a port in use is one line on
 * stderr and exit status 2 / 1.
 */
public final class ProbeServerMain {
    private ProbeServerMain() {
    }

    /** A start-up failure whose message is the whole story (no stack trace for the user). */
    public static final class StartupFailure extends Exception {
        private final int exitCode;

        public StartupFailure(String message, int exitCode) {
            super(message);
            this.exitCode = exitCode;
        }

        public int exitCode() {
            return exitCode;
        }
    }

    public static void main(String[] args) throws Exception {
        try {
            serve(args);
        } catch (StartupFailure e) {
            System.err.println("probe-server: " + e.getMessage());
            System.exit(e.exitCode());
        }
    }

    /** Parses, loads the model, listens and blocks until shutdown. */
    public static void serve(String[] args) throws Exception {
        Path model = null;
        int port = 8080;
        String host = "127.0.0.1";
        Device device = Device.AUTO;
        int budget = BatchingOptions.DEFAULT.tokenBudget();
        long waitMs = BatchingOptions.DEFAULT.maxWaitMillis();
        ServerLimits limits = ServerLimits.DEFAULT;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (a) {
                    case "--model" -> model = Path.of(need(a, v));
                    case "--port" -> port = Integer.parseInt(need(a, v));
                    case "--host" -> host = need(a, v);
                    case "--device" -> device = Device.parse(need(a, v));
                    case "--token-budget" -> budget = Integer.parseInt(need(a, v));
                    case "--max-wait-ms" -> waitMs = Long.parseLong(need(a, v));
                    case "--max-request-bytes" -> limits = limits.withBodyBytes(Long.parseLong(need(a, v)));
                    case "--max-items" -> limits = limits.withItems(Integer.parseInt(need(a, v)));
                    case "--max-turns" -> limits = limits.withTurns(Integer.parseInt(need(a, v)));
                    case "--max-chars-per-turn" -> limits = limits.withCharsPerTurn(Integer.parseInt(need(a, v)));
                    case "--max-request-tokens" -> limits = limits.withTokensPerRequest(Integer.parseInt(need(a, v)));
                    case "--max-concurrent" -> limits = limits.withConcurrent(Integer.parseInt(need(a, v)));
                    case "-h", "--help" -> {
                        System.out.println("usage: ProbeServerMain --model DIR [--port N] [--host H (default 127.0.0.1)]"
                                + " [--device auto|cpu|cuda] [--token-budget N] [--max-wait-ms N]"
                                + " [--max-request-bytes N] [--max-items N] [--max-turns N] [--max-chars-per-turn N]"
                                + " [--max-request-tokens N] [--max-concurrent N]");
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown argument " + a);
                }
                i++;
            }
        } catch (NumberFormatException e) {
            throw new StartupFailure("not a number: " + e.getMessage(), 2);
        } catch (IllegalArgumentException e) {
            throw new StartupFailure(e.getMessage(), 2);
        }
        if (model == null) {
            throw new StartupFailure("--model DIR is required", 2);
        }
        // Fail in a second, not after loading a large model: the real bind below still decides.
        requirePortFree(host, port);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ProbeScorer scorer;
        try {
            scorer = ProbeScorer.open(model, device, new BatchingOptions(budget, waitMs), registry);
        } catch (IOException | ai.onnxruntime.OrtException e) {
            // a missing file or an export the server cannot feed: one line, exit 2
            throw new StartupFailure(e.getMessage(), 2);
        }
        Vertx vertx = Vertx.vertx();
        ProbeHttpServer server = new ProbeHttpServer(vertx, scorer, registry, limits);
        int bound;
        try {
            bound = server.start(host, port);
        } catch (PortInUseException e) {
            scorer.close();
            vertx.close();
            throw new StartupFailure(e.getMessage(), 1);
        }
        System.out.println("probe server " + scorer.spec().name() + " on " + host + ":" + bound
                + " (device " + scorer.model().device() + ", at most " + limits.maxTokensPerRequest() + " tokens per request, "
                + limits.maxConcurrent() + " requests at once)");
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
                scorer.close();
                vertx.close();
            } catch (Exception ignored) {
                // shutting down anyway
            }
            stop.countDown();
        }));
        stop.await();
    }

    static void requirePortFree(String host, int port) throws StartupFailure {
        if (port == 0) {
            return;
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName(host), port));
        } catch (java.net.BindException e) {
            throw new StartupFailure(new PortInUseException(host, port).getMessage(), 1);
        } catch (IOException e) {
            throw new StartupFailure("cannot listen on " + host + ":" + port + ": " + e.getMessage(), 1);
        }
    }

    private static String need(String flag, String value) {
        if (value == null) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return value;
    }
}
