package dev.crucible.cli.run;

import dev.crucible.verifier.EpisodeStateException;
import dev.crucible.verifier.api.ApiToken;
import dev.crucible.verifier.api.EnvironmentApi;
import dev.crucible.verifier.api.EpisodeHolder;
import dev.crucible.verifier.api.SidecarMetrics;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * An interactive attempt's environment API: the sidecar's own server, on 127.0.0.1 with a token of its own. It listens
 * (and its token file is written) before the environment's setup runs, answering 503 "setting up" until {@link #ready},
 * so a trainer needs no polling for the file; after the trainer verified it stays up read-only until POST /v1/close or
 * {@link #AFTER_VERIFY}, so findings can still be read.
 */
final class LocalEnvironmentApi implements AutoCloseable {
    /** How long the API answers after /v1/verify when the trainer does not POST /v1/close. */
    static final Duration AFTER_VERIFY = Duration.ofSeconds(10);

    private final Vertx vertx;
    private final EnvironmentApi api;
    private final CountDownLatch closeAsked = new CountDownLatch(1);
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile EpisodeHolder holder;

    private LocalEnvironmentApi(Vertx vertx, ApiToken token) {
        this.vertx = vertx;
        this.api = EnvironmentApi.settingUp(vertx, new SidecarMetrics(() -> {
            EpisodeHolder h = holder;
            return h == null ? 0 : h.monitorCpuSeconds();
        }), EnvironmentApi.DEFAULT_MAX_BODY, token);
        api.onClose(this::closeAsked);
    }

    /**
     * Listens on {@code port} (0: an ephemeral one) with a new token, written 0600 to the attempt folder:
     * 127.0.0.1 is reachable by every local user, so the API needs one. The terminal names the file, never
     * the token, unless {@code printToken}: standard output is often a log that other local users can read.
     */
    static LocalEnvironmentApi open(AttemptDir dir, int port, boolean printToken, Progress progress) throws Exception {
        ApiToken token = ApiToken.generate();
        Vertx vertx = Vertx.vertx();
        LocalEnvironmentApi local = new LocalEnvironmentApi(vertx, token);
        Path tokenFile;
        try {
            local.api.listen("127.0.0.1", port).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            tokenFile = token.writeTo(dir.apiToken()); // once listening: a client that sees the file can connect
        } catch (Exception | Error e) {
            local.close();
            throw e;
        }
        progress.info(printToken
                ? "environment API token: " + token.value() + " (send Authorization: Bearer <token>; also in " + tokenFile + ", mode 0600)"
                : "environment API token in " + tokenFile + " (mode 0600; send Authorization: Bearer <its content>; --print-token prints it)");
        // not "environment API on": that line, once Running, is what tools wait for before their first call
        progress.info("environment API listening at " + local.endpoint() + ": answers 503 \"setting up\" (GET /healthz too) until setup is done");
        return local;
    }

    EnvironmentApi api() { return api; }

    String endpoint() { return "http://127.0.0.1:" + api.port(); }

    /** Setup is done: the API serves {@code h}'s episodes. */
    void ready(EpisodeHolder h) {
        holder = h;
        api.ready(h);
    }

    private Object closeAsked() {
        EpisodeHolder h = holder;
        if (h == null || !"GRADED".equals(h.state())) throw new EpisodeStateException("POST /v1/verify first: /v1/close ends the API of a verified episode");
        closeAsked.countDown();
        return Map.of("closing", true);
    }

    /** The trainer's /v1/verify graded: reset and step are refused from now on; verify and findings still answer. */
    void verified() {
        api.readOnly("the episode was verified: GET /v1/findings and POST /v1/verify still answer; POST /v1/close ends the API");
    }

    /**
     * Ends the API once the attempt's result is written: after the trainer's verify ({@code verified}) it answers a while
     * longer, until POST /v1/close, {@link #AFTER_VERIFY}, or {@code stop} (Ctrl-C, the deadline).
     */
    void end(boolean verified, BooleanSupplier stop) {
        try {
            long until = System.nanoTime() + AFTER_VERIFY.toNanos();
            while (verified && System.nanoTime() - until < 0 && !stop.getAsBoolean()) {
                if (closeAsked.await(100, TimeUnit.MILLISECONDS)) break;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }

    /** Stops listening once the answers in flight are written, then ends the server's threads. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            api.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // closed anyway with its Vertx below
        } finally {
            vertx.close();
        }
    }
}
