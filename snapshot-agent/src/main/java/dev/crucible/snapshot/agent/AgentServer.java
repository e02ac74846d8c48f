package dev.crucible.snapshot.agent;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.store.ManifestFiles;
import dev.crucible.snapshot.store.RetentionPolicy;
import dev.crucible.snapshot.client.store.SnapshotId;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import dev.crucible.snapshot.tls.AgentServerTls;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's HTTP API (Vert.x). Everything under /v1 needs the bearer token; /healthz and
 * /metrics are open (they reveal no snapshot content). Engine calls block (CRIU runs for
 * seconds), so they run on worker threads, never on the event loop.
 *
 * <pre>
 * POST   /v1/freeze           {target, timeoutMs}                 pause a tree (watchdog-bounded)
 * POST   /v1/thaw             {freezeId}
 * POST   /v1/dump/prepare     SnapshotRequest                     pre-dumps, then freeze
 * POST   /v1/dump/dump        {snapshotId}                        final dump + workspace, still frozen
 * POST   /v1/dump/commit      {snapshotId, action: thaw|stop}     thaw (or stop), checksum, COMPLETE
 * POST   /v1/dump/abort       {snapshotId, reason}                thaw, FAILED
 * POST   /v1/dump             SnapshotRequest (+ "action")        all three phases in one call
 * POST   /v1/restore          {snapshotId, workspaceOut, verify}
 * GET    /v1/snapshots        manifests, newest first
 * GET    /v1/snapshots/{id}
 * DELETE /v1/snapshots/{id}
 * POST   /v1/gc               {keepPerGroup, ttlSeconds, failedTtlSeconds}
 * </pre>
 */
public final class AgentServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AgentServer.class);
    private static final ObjectMapper STRICT = ManifestFiles.JSON.copy()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final SnapshotEngine engine;
    private final BearerTokenAuth auth;
    private final Vertx vertx;
    private HttpServer server;

    public AgentServer(SnapshotEngine engine, BearerTokenAuth auth) {
        this.engine = engine;
        this.auth = auth;
        this.vertx = Vertx.vertx(new VertxOptions().setMaxWorkerExecuteTime(1).setMaxWorkerExecuteTimeUnit(TimeUnit.HOURS)
                .setWarningExceptionTime(1).setWarningExceptionTimeUnit(TimeUnit.HOURS));
    }

    /** Starts listening in plaintext, on a loopback address only; port 0 picks a free one. Returns the bound port. */
    public int start(String host, int port) {
        return start(host, port, null);
    }

    /**
     * Starts listening; port 0 picks a free one. Returns the bound port. Without {@code tls} only a
     * loopback host is accepted: the token would otherwise cross the network in the clear.
     */
    public int start(String host, int port, AgentServerTls tls) {
        if (tls == null && !loopback(host)) {
            throw new IllegalArgumentException("--host " + host + ": plaintext is allowed on 127.0.0.1/::1 only;"
                    + " give --tls-cert, --tls-key and --client-ca to listen on " + host);
        }
        Router router = Router.router(vertx);
        router.get("/healthz").handler(ctx -> json(ctx, 200, health()));
        router.get("/metrics").handler(ctx -> ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4")
                .end(engine.metrics().scrape()));
        router.route("/v1/*").handler(auth);
        router.route("/v1/*").handler(BodyHandler.create().setBodyLimit(64 * 1024));

        router.post("/v1/freeze").handler(ctx -> call(ctx, () -> {
            ApiRequests.Freeze r = body(ctx, ApiRequests.Freeze.class);
            require(r.target(), "target");
            return engine.freeze(r.target(), r.timeoutMs());
        }));
        router.post("/v1/thaw").handler(ctx -> call(ctx, () -> {
            ApiRequests.Thaw r = body(ctx, ApiRequests.Thaw.class);
            require(r.freezeId(), "freezeId");
            return Map.of("freezeId", r.freezeId(), "frozenMs", engine.thaw(r.freezeId()));
        }));
        router.post("/v1/dump/prepare").handler(ctx -> call(ctx, () -> engine.prepare(snapshotRequest(ctx))));
        router.post("/v1/dump/dump").handler(ctx -> call(ctx, () -> engine.dump(phase(ctx).snapshotId())));
        router.post("/v1/dump/commit").handler(ctx -> call(ctx, () -> {
            ApiRequests.Commit r = body(ctx, ApiRequests.Commit.class);
            require(r.snapshotId(), "snapshotId");
            return engine.commit(r.snapshotId(), action(r.action()));
        }));
        router.post("/v1/dump/abort").handler(ctx -> call(ctx, () -> {
            ApiRequests.Abort r = body(ctx, ApiRequests.Abort.class);
            require(r.snapshotId(), "snapshotId");
            return engine.abort(r.snapshotId(), r.reason());
        }));
        router.post("/v1/dump").handler(ctx -> call(ctx, () -> {
            Map<?, ?> raw = STRICT.readValue(bodyBytes(ctx), Map.class);
            Object action = raw.remove("action");
            SnapshotRequest r = STRICT.convertValue(raw, SnapshotRequest.class);
            require(r.snapshotId(), "snapshotId");
            return engine.snapshot(r, action(action == null ? null : action.toString()));
        }));
        router.post("/v1/restore").handler(ctx -> call(ctx, () -> {
            RestoreRequest r = body(ctx, RestoreRequest.class);
            require(r.snapshotId(), "snapshotId");
            return engine.restore(r);
        }));
        router.get("/v1/snapshots").handler(ctx -> call(ctx, engine::list));
        router.get("/v1/snapshots/:id").handler(ctx -> call(ctx,
                () -> engine.store().require(SnapshotId.of(ctx.pathParam("id")))));
        router.delete("/v1/snapshots/:id").handler(ctx -> call(ctx, () -> {
            String id = ctx.pathParam("id");
            if (!engine.delete(id)) {
                throw new dev.crucible.snapshot.store.SnapshotNotFoundException(SnapshotId.of(id));
            }
            return Map.of("deleted", id);
        }));
        router.post("/v1/gc").handler(ctx -> call(ctx, () -> {
            ApiRequests.Gc r = body(ctx, ApiRequests.Gc.class);
            RetentionPolicy d = RetentionPolicy.defaults();
            RetentionPolicy p = new RetentionPolicy(r.keepPerGroup() == null ? d.keepPerGroup() : r.keepPerGroup(),
                    r.ttlSeconds() == null ? d.ttl() : Duration.ofSeconds(r.ttlSeconds()),
                    r.failedTtlSeconds() == null ? d.failedTtl() : Duration.ofSeconds(r.failedTtlSeconds()));
            return Map.of("deleted", engine.gc(p));
        }));
        router.route().last().handler(ctx -> json(ctx, 404, Map.of("error", "no such endpoint: "
                + ctx.request().method() + " " + ctx.request().path())));

        HttpServerOptions options = new HttpServerOptions();
        if (tls != null) {
            options.setSsl(true)
                    .setKeyCertOptions(new PemKeyCertOptions().setCertPath(tls.certFile().toString()).setKeyPath(tls.keyFile().toString()))
                    .setTrustOptions(new PemTrustOptions().addCertPath(tls.clientCaFile().toString()))
                    .setClientAuth(ClientAuth.REQUIRED);
        }
        server = await(vertx.createHttpServer(options).requestHandler(router).listen(port, host));
        return server.actualPort();
    }

    private static boolean loopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    @Override
    public void close() {
        if (server != null) {
            await(server.close());
        }
        await(vertx.close());
    }

    private Map<String, Object> health() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("status", "ok");
        h.put("criu", engine.criu().map(c -> c.version()).orElse(null));
        h.put("memoryTracking", engine.criu().map(c -> c.memoryTracking()).orElse(false));
        h.put("inFlight", engine.inFlight().size());
        return h;
    }

    private SnapshotRequest snapshotRequest(RoutingContext ctx) throws Exception {
        SnapshotRequest r = body(ctx, SnapshotRequest.class);
        require(r.snapshotId(), "snapshotId");
        require(r.target(), "target");
        return r;
    }

    private ApiRequests.Phase phase(RoutingContext ctx) throws Exception {
        ApiRequests.Phase r = body(ctx, ApiRequests.Phase.class);
        require(r.snapshotId(), "snapshotId");
        return r;
    }

    private static CommitAction action(String a) {
        if (a == null) {
            return CommitAction.THAW;
        }
        try {
            return CommitAction.valueOf(a.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("action must be 'thaw' or 'stop', got '" + a + "'");
        }
    }

    private static void require(Object value, String field) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is required");
        }
    }

    private static byte[] bodyBytes(RoutingContext ctx) {
        if (ctx.body() == null || ctx.body().buffer() == null || ctx.body().length() == 0) {
            throw new IllegalArgumentException("request body is required (JSON)");
        }
        return ctx.body().buffer().getBytes();
    }

    private static <T> T body(RoutingContext ctx, Class<T> type) throws Exception {
        return STRICT.readValue(bodyBytes(ctx), type);
    }

    private void call(RoutingContext ctx, Callable<Object> work) {
        vertx.executeBlocking(work, false).onComplete(ar -> {
            if (ar.succeeded()) {
                json(ctx, 200, ar.result());
            } else {
                ApiErrors.Error e = ApiErrors.of(ar.cause());
                if (e.status() >= 500) {
                    LOG.warn(ctx.request().path() + " failed", ar.cause());
                }
                json(ctx, e.status(), Map.of("error", String.valueOf(e.message())));
            }
        });
    }

    private static void json(RoutingContext ctx, int status, Object value) {
        try {
            ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                    .end(io.vertx.core.buffer.Buffer.buffer(ManifestFiles.JSON.writeValueAsBytes(value)));
        } catch (Exception e) {
            ctx.response().setStatusCode(500).end("{\"error\":\"cannot serialise response\"}");
        }
    }

    private static <T> T await(Future<T> f) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("vert.x operation failed: " + e.getMessage(), e);
        }
    }
}
