package dev.crucible.tracestore.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.tracestore.common.StoreSettings;
import dev.crucible.tracestore.auth.Caller;
import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.index.RolloutFilter;
import dev.crucible.tracestore.common.StoreException;
import dev.crucible.tracestore.store.TraceService;
import dev.crucible.tracestore.store.TraceStorage;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's HTTP API (Vert.x Web, as the sidecar's environment API, the console and the snapshot agent). Paths name
 * the Rollout as the API server does: {@code /v1/namespaces/<ns>/rollouts/<name>/…}. Writes ({@code PUT}) take the
 * writer's token, reads any token whose user may {@code get} the Rollout; the index ({@code GET /v1/rollouts}) shows
 * only namespaces the caller may {@code list} Rollouts in. Every refusal is JSON {@code {"error": "…"}} naming the
 * field, the limit or the permission. Store calls are blocking (files, H2, reviews): they run off the event loop.
 */
public final class TraceStoreServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TraceStoreServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ROLLOUT = "/v1/namespaces/:ns/rollouts/:name";

    private final Vertx vertx;
    private final HttpServer server;

    private TraceStoreServer(Vertx vertx, HttpServer server) {
        this.vertx = vertx;
        this.server = server;
    }

    public int port() {
        return server.actualPort();
    }

    public static TraceStoreServer start(StoreSettings settings, TraceService store, KubeAuth auth) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            Router router = router(vertx, settings, store, auth);
            HttpServer server = vertx.createHttpServer().requestHandler(router).listen(settings.port(), "0.0.0.0")
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            return new TraceStoreServer(vertx, server);
        } catch (Exception e) {
            vertx.close();
            throw e;
        }
    }

    static Router router(Vertx vertx, StoreSettings settings, TraceService store, KubeAuth auth) {
        Router router = Router.router(vertx);
        router.get("/healthz").handler(ctx -> ctx.response().end("ok"));
        // A body over the limit is refused from its Content-Length, before it is read; BodyHandler bounds the rest.
        router.put(ROLLOUT + "/*").handler(ctx -> {
            String len = ctx.request().getHeader("Content-Length");
            if (len != null && len.matches("\\d{1,18}") && Long.parseLong(len) > settings.maxChunkBytes()) {
                fail(ctx, StoreException.tooLarge("the body holds " + len + " bytes, over the store's maxChunkBytes="
                        + settings.maxChunkBytes() + " (send a segment in smaller appends)"));
                return;
            }
            ctx.next();
        });
        router.put(ROLLOUT + "/*").handler(BodyHandler.create(false).setBodyLimit(settings.maxChunkBytes()));

        router.put(ROLLOUT + "/segments/:n").blockingHandler(ctx -> run(ctx, () -> {
            String ns = ctx.pathParam("ns");
            store.files().check(ns, ctx.pathParam("name")); // a bad name is a 400 before any review
            auth.writer(ctx.request().getHeader("Authorization"), ns);
            int n = intParam("segment number", ctx.pathParam("n"));
            long offset = ctx.queryParams().get("offset") == null ? 0 : longParam("offset", ctx.queryParams().get("offset"));
            var a = store.appendSegment(ns, ctx.pathParam("name"), n, offset, ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes());
            json(ctx, 200, Map.of("segment", n, "size", a.size(), "added", a.added()));
        }), false);
        router.put(ROLLOUT + "/blobs/sha256/:hex").blockingHandler(ctx -> run(ctx, () -> {
            String ns = ctx.pathParam("ns");
            store.files().check(ns, ctx.pathParam("name")); // a bad name is a 400 before any review
            auth.writer(ctx.request().getHeader("Authorization"), ns);
            byte[] body = ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes();
            long added = store.putBlob(ns, ctx.pathParam("name"), ctx.pathParam("hex"), body);
            json(ctx, 200, Map.of("blob", "sha256:" + ctx.pathParam("hex"), "added", added));
        }), false);

        router.get(ROLLOUT).blockingHandler(ctx -> run(ctx, () -> {
            readable(ctx, auth, store);
            json(ctx, 200, store.row(ctx.pathParam("ns"), ctx.pathParam("name")));
        }), false);
        router.get(ROLLOUT + "/segments").blockingHandler(ctx -> run(ctx, () -> {
            readable(ctx, auth, store);
            json(ctx, 200, Map.of("segments", store.files().segments(ctx.pathParam("ns"), ctx.pathParam("name"))));
        }), false);
        router.get(ROLLOUT + "/segments/:n").blockingHandler(ctx -> run(ctx, () -> {
            readable(ctx, auth, store);
            var seg = store.files().segmentFile(ctx.pathParam("ns"), ctx.pathParam("name"), intParam("segment number", ctx.pathParam("n")));
            send(ctx, vertx, seg, "application/x-ndjson", "segment " + ctx.pathParam("n"));
        }), false);
        router.get(ROLLOUT + "/blobs/sha256/:hex").blockingHandler(ctx -> run(ctx, () -> {
            readable(ctx, auth, store);
            var blob = store.files().blobFile(ctx.pathParam("ns"), ctx.pathParam("name"), ctx.pathParam("hex"));
            send(ctx, vertx, blob, "application/octet-stream", "blob sha256:" + ctx.pathParam("hex"));
        }), false);
        router.get(ROLLOUT + "/atif").blockingHandler(ctx -> run(ctx, () -> {
            readable(ctx, auth, store);
            // Written to a temporary file first: a week-long run's document is streamed, never held in memory.
            Path tmp = Files.createTempFile("atif-", ".json");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                store.atif(ctx.pathParam("ns"), ctx.pathParam("name"), out);
            }
            ctx.response().putHeader("Content-Type", "application/json").sendFile(tmp.toString())
                    .onComplete(x -> vertx.executeBlocking(() -> Files.deleteIfExists(tmp), false));
        }), false);

        router.get("/v1/rollouts").blockingHandler(ctx -> run(ctx, () -> {
            Caller c = auth.reader(ctx.request().getHeader("Authorization"));
            RolloutFilter f = RolloutFilter.fromQuery(k -> ctx.queryParams().get(k), k -> ctx.queryParams().getAll(k));
            String ns = ctx.queryParams().get("namespace");
            Set<String> allowed;
            if (ns != null) {
                store.files().check(ns, "x"); // checks the namespace's form
                if (!auth.mayList(c, ns)) {
                    throw new StoreException(403, "forbidden: " + c.user() + " cannot list rollouts." + KubeAuth.GROUP
                            + " in namespace " + ns);
                }
                allowed = Set.of(ns);
            } else if (auth.mayList(c, "")) {
                allowed = null;
            } else {
                allowed = new HashSet<>();
                for (String n : store.index().namespaces()) if (auth.mayList(c, n)) allowed.add(n);
            }
            long t0 = System.nanoTime();
            var rows = store.query(f.withNamespaces(allowed));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("rollouts", rows);
            out.put("queryMs", (System.nanoTime() - t0) / 1e6);
            json(ctx, 200, out);
        }), false);
        router.route().last().handler(ctx -> fail(ctx, StoreException.notFound("no such path: " + ctx.request().method() + " " + ctx.request().path())));
        router.route().failureHandler(ctx -> {
            if (ctx.statusCode() == 413) {
                fail(ctx, StoreException.tooLarge("the body is over the store's maxChunkBytes=" + settings.maxChunkBytes()));
            } else {
                LOG.warn("request failed: {} {}", ctx.request().path(), String.valueOf(ctx.failure()));
                fail(ctx, new StoreException(ctx.statusCode() > 0 ? ctx.statusCode() : 500,
                        "request failed: " + (ctx.failure() == null ? "status " + ctx.statusCode() : ctx.failure().toString())));
            }
        });
        return router;
    }

    /** Permission first (so a caller who may not read learns nothing, not even whether it is stored), then existence. */
    private static void readable(RoutingContext ctx, KubeAuth auth, TraceService store) throws Exception {
        Caller c = auth.reader(ctx.request().getHeader("Authorization"));
        store.files().check(ctx.pathParam("ns"), ctx.pathParam("name"));
        auth.requireGet(c, ctx.pathParam("ns"), ctx.pathParam("name"));
        store.requireStored(ctx.pathParam("ns"), ctx.pathParam("name"));
    }

    /** Sends a stored file; an object store's temporary copy is deleted once sent. */
    private static void send(RoutingContext ctx, Vertx vertx, TraceStorage.Local file, String type, String what) {
        if (file == null) {
            throw StoreException.notFound(what + " of " + ctx.pathParam("ns") + "/" + ctx.pathParam("name") + " is not stored");
        }
        ctx.response().putHeader("Content-Type", type).sendFile(file.path().toString())
                .onComplete(x -> vertx.executeBlocking(() -> {
                    file.close();
                    return null;
                }, false));
    }

    private interface Action { void run() throws Exception; }

    private static void run(RoutingContext ctx, Action a) {
        try {
            a.run();
        } catch (StoreException e) {
            fail(ctx, e);
        } catch (Exception e) {
            LOG.warn("{} {} failed", ctx.request().method(), ctx.request().path(), e);
            fail(ctx, new StoreException(500, "the store failed: " + e));
        }
    }

    private static void fail(RoutingContext ctx, StoreException e) {
        if (ctx.response().headWritten()) return;
        json(ctx, e.status(), Map.of("error", e.getMessage()));
    }

    private static void json(RoutingContext ctx, int status, Object body) {
        try {
            ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(JSON.writeValueAsString(body));
        } catch (Exception e) {
            ctx.response().setStatusCode(500).end();
        }
    }

    private static int intParam(String field, String v) {
        long n = longParam(field, v);
        if (n > Integer.MAX_VALUE) throw StoreException.badRequest(field + " '" + v + "' is too large");
        return (int) n;
    }

    private static long longParam(String field, String v) {
        if (v == null || !v.matches("\\d{1,18}")) throw StoreException.badRequest(field + " '" + v + "' is not a whole number");
        return Long.parseLong(v);
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

}
