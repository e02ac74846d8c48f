package dev.crucible.probe;

import dev.crucible.probe.model.Device;
import dev.crucible.probe.serve.BatchingOptions;
import dev.crucible.probe.serve.ProbeHttpServer;
import dev.crucible.probe.serve.ProbeScorer;
import dev.crucible.probe.serve.ServerLimits;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Container entry point: {@code ProbeServerMain --model DIR [--port 8080] [--host 0.0.0.0]
 * [--device auto|cpu|cuda] [--token-budget 8192] [--max-wait-ms 2] [--max-request-bytes N]
 * [--max-items N] [--max-turns N]}. DIR holds probe.json (see
 * {@link dev.crucible.probe.model.ProbeSpec}), so a mounted ConfigMap/volume is all it needs.
 */
public final class ProbeServerMain {
    private ProbeServerMain() {
    }

    public static void main(String[] args) throws Exception {
        Path model = null;
        int port = 8080;
        String host = "0.0.0.0";
        Device device = Device.AUTO;
        int budget = BatchingOptions.DEFAULT.tokenBudget();
        long waitMs = BatchingOptions.DEFAULT.maxWaitMillis();
        ServerLimits limits = ServerLimits.DEFAULT;
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
                case "--max-request-bytes" -> limits = new ServerLimits(Long.parseLong(need(a, v)), limits.maxItems(),
                        limits.maxTurns(), limits.maxCharsPerTurn());
                case "--max-items" -> limits = new ServerLimits(limits.maxBodyBytes(), Integer.parseInt(need(a, v)),
                        limits.maxTurns(), limits.maxCharsPerTurn());
                case "--max-turns" -> limits = new ServerLimits(limits.maxBodyBytes(), limits.maxItems(),
                        Integer.parseInt(need(a, v)), limits.maxCharsPerTurn());
                case "-h", "--help" -> {
                    System.out.println("usage: ProbeServerMain --model DIR [--port N] [--host H]"
                            + " [--device auto|cpu|cuda] [--token-budget N] [--max-wait-ms N]"
                            + " [--max-request-bytes N] [--max-items N] [--max-turns N]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
            i++;
        }
        if (model == null) {
            throw new IllegalArgumentException("--model DIR is required");
        }
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ProbeScorer scorer = ProbeScorer.open(model, device, new BatchingOptions(budget, waitMs), registry);
        Vertx vertx = Vertx.vertx();
        ProbeHttpServer server = new ProbeHttpServer(vertx, scorer, registry, limits);
        int bound = server.start(host, port);
        System.out.println("probe server " + scorer.spec().name() + " on " + host + ":" + bound
                + " (device " + scorer.model().device() + ")");
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

    private static String need(String flag, String value) {
        if (value == null) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return value;
    }
}
