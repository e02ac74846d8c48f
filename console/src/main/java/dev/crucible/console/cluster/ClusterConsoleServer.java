package dev.crucible.console.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The console's cluster-mode JSON API: every request carries the person's own bearer token ({@code Authorization:
 * Bearer …}, as {@code kubectl} sends it, or through {@code kubectl port-forward}), and {@link ClusterSource} asks the
 * API server and the trace store with it. No token: 401. A refusal of either: its status and message.
 *
 * <ul>
 *   <li>{@code GET /api/cluster/rollouts?namespace=NS[,NS…]}: the rollouts the caller may see, live and stored</li>
 *   <li>{@code GET /api/cluster/trace?namespace=&name=&from=1&limit=200}: events of one stored trajectory (limit ≤ 1000)</li>
 *   <li>the local console's pages ({@code /}, {@code /trace?rollout=NS/NAME}, search, lineage, side by side, false alarm)
 *   and the API they read (and the ATIF export), over {@link ClusterMirror}</li>
 *   <li>{@code POST /api/revert}: a branch Rollout made with the caller's token ({@link ClusterRevert})</li>
 * </ul>
 */
public final class ClusterConsoleServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Vertx vertx;
    private final HttpServer server;

    private ClusterConsoleServer(Vertx vertx, HttpServer server) {
        this.vertx = vertx;
        this.server = server;
    }

    public static ClusterConsoleServer start(ClusterSource source, String host, int port) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            Router router = Router.router(vertx);
            router.get("/healthz").handler(ctx -> ctx.response().end("ok"));
            router.get("/api/cluster/rollouts").blockingHandler(ctx -> answer(ctx, () ->
                    source.rollouts(token(ctx), ClusterSource.namespaces(ctx.queryParam("namespace")))));
            router.get("/api/cluster/trace").blockingHandler(ctx -> answer(ctx, () -> {
                String token = token(ctx);
                long from = number(ctx, "from", 1, 1, Long.MAX_VALUE);
                int limit = (int) number(ctx, "limit", 200, 1, 1000);
                return source.trace(token, ctx.queryParams().get("namespace"), ctx.queryParams().get("name"), from, limit);
            }));
            // the pages (the local console's, same HTML and scripts) over the same source, each request with its own token
            ClusterMirror mirror = new ClusterMirror(source);
            ClusterRevert revert = new ClusterRevert(source, mirror);
            dev.crucible.console.http.ClusterPages.mount(router, mirror, revert::revert);
            HttpServer server = vertx.createHttpServer().requestHandler(router).listen(port, host)
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            return new ClusterConsoleServer(vertx, server);
        } catch (Exception e) {
            vertx.close();
            throw e;
        }
    }

    public int port() {
        return server.actualPort();
    }

    private static String token(RoutingContext ctx) {
        String h = ctx.request().getHeader("Authorization");
        if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7) || h.substring(7).isBlank()) {
            throw new ClusterSource.Refused(401, "no bearer token: send your Kubernetes token as 'Authorization: Bearer …'");
        }
        return h.substring(7).trim();
    }

    private static long number(RoutingContext ctx, String field, long dflt, long min, long max) {
        String v = ctx.queryParams().get(field);
        if (v == null || v.isEmpty()) return dflt;
        try {
            long n = Long.parseLong(v);
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException e) {
            // the message below names it
        }
        throw new ClusterSource.Refused(400, field + " '" + v + "' must be a whole number from " + min + " to " + max);
    }

    private static void answer(RoutingContext ctx, Supplier<Object> body) {
        int status;
        Object out;
        try {
            out = body.get();
            status = 200;
        } catch (ClusterSource.Refused e) {
            status = e.status;
            out = Map.of("error", e.getMessage(), "status", e.status);
        }
        try {
            ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(JSON.writeValueAsString(out));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            ctx.fail(e);
        }
    }

    @Override
    public void close() throws Exception {
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
