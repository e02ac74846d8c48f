package dev.crucible.console.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.search.SearchIndex;
import dev.crucible.console.store.RunStore;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The console's HTTP server (local mode): the two pages, their assets (all from this jar: no CDN, so it works without a
 * network) and the JSON API the pages read. API handlers read files, so they run on Vert.x's worker threads. Every
 * error is JSON with a message the page shows: 400 for a bad parameter, 404 for an unknown rollout, event or path;
 * a 500 only for a bug, and it says what failed.
 */
public final class ConsoleServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ConsoleServer.class.getName());
    static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    /** The browser may load nothing from anywhere but this server, and run no inline script (agent text is shown as text). */
    static final String CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

    private final Vertx vertx;
    private final HttpServer server;
    private final RunStore store;
    private final String host;
    private final SearchIndex search;
    private final ScheduledExecutorService indexer;

    private ConsoleServer(Vertx vertx, HttpServer server, RunStore store, String host, SearchIndex search, ScheduledExecutorService indexer) {
        this.vertx = vertx;
        this.server = server;
        this.store = store;
        this.host = host;
        this.search = search;
        this.indexer = indexer;
    }

    /** Serves the rollouts under {@code runs} on {@code host:port} (0: a free port); throws when the port cannot be bound. */
    public static ConsoleServer start(Path runs, String host, int port) throws Exception {
        return start(runs, host, port, true);
    }

    /**
     * As {@link #start(Path, String, int)}; with {@code indexing} false no search index is built (search answers that
     * it has indexed nothing): the benchmark's list, filter and trace figures on a store too big to index in its time.
     */
    public static ConsoleServer start(Path runs, String host, int port, boolean indexing) throws Exception {
        return start(runs, host, port, indexing, defaultSnapshotStore());
    }

    /** crucible run's snapshot store when none is given: $CRUCIBLE_SNAPSHOTS, else ~/.cache/crucible/snapshots. */
    public static Path defaultSnapshotStore() {
        String env = System.getenv("CRUCIBLE_SNAPSHOTS");
        return env != null && !env.isBlank() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "crucible", "snapshots");
    }

    /** As {@link #start(Path, String, int, boolean)}, reading the workspace at a step from the snapshots in {@code snapshots}. */
    public static ConsoleServer start(Path runs, String host, int port, boolean indexing, Path snapshots) throws Exception {
        return start(runs, host, port, indexing, snapshots, null);
    }

    /**
     * As {@link #start(Path, String, int, boolean, Path)}, with the search index kept in {@code keptIndex} between starts
     * (a restart indexes only the rollouts that changed; see {@link #defaultIndexDir}); null: a temporary index, rebuilt.
     */
    public static ConsoleServer start(Path runs, String host, int port, boolean indexing, Path snapshots, Path keptIndex) throws Exception {
        RunStore store = new RunStore(runs, 2000);
        SearchIndex search = searchIndex(store, keptIndex);
        ScheduledExecutorService indexer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "console-search-indexer");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY); // the pages' requests come first
            return t;
        });
        Vertx vertx = Vertx.vertx();
        try {
            Router router = router(vertx, store, search, snapshots);
            HttpServer server = vertx.createHttpServer().requestHandler(router).listen(port, host)
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            // incremental: each pass indexes only the rollouts that appeared or changed since the last
            if (indexing) indexer.scheduleWithFixedDelay(() -> {
                try {
                    search.sync();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "console search: indexing pass failed", e);
                }
            }, 0, 2, TimeUnit.SECONDS);
            return new ConsoleServer(vertx, server, store, host, search, indexer);
        } catch (Exception e) {
            search.stop();
            indexer.shutdown();
            search.close();
            vertx.close();
            throw e;
        }
    }

    /**
     * Where {@code crucible console} keeps the search index of {@code runs}: one folder per RUNS folder (named by a hash
     * of its real path) in $XDG_CACHE_HOME/crucible/console-index, else ~/.cache/…; never under RUNS, which holds the
     * agents' folders.
     */
    public static Path defaultIndexDir(Path runs) throws java.io.IOException {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path cache = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        byte[] h;
        try {
            h = java.security.MessageDigest.getInstance("SHA-256").digest(runs.toRealPath().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return cache.resolve("crucible").resolve("console-index").resolve(java.util.HexFormat.of().formatHex(h, 0, 8));
    }

    /**
     * The search index kept in {@code kept}, so a restart re-indexes only what changed; when {@code kept} is null, cannot
     * be written, or another console holds it, a temporary one rebuilt from RUNS (a kept one refused is said in the log).
     */
    static SearchIndex searchIndex(RunStore store, Path kept) throws java.io.IOException {
        if (kept == null) return new SearchIndex(store, java.nio.file.Files.createTempDirectory("crucible-console-index-"), true);
        if (kept.toAbsolutePath().normalize().startsWith(store.root())) {
            throw new IllegalArgumentException("the search index " + kept + " would be under RUNS " + store.root() + " (the agents' folders)");
        }
        try {
            return new SearchIndex(store, kept, false);
        } catch (java.io.IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "console search: the index is not kept in " + kept + " (" + e.getMessage() + "): a temporary one is rebuilt at each start");
            return new SearchIndex(store, java.nio.file.Files.createTempDirectory("crucible-console-index-"), true);
        }
    }

    static Router router(Vertx vertx, RunStore store, SearchIndex search, Path snapshots) {
        Router router = Router.router(vertx);
        ApiHandlers api = new ApiHandlers(store);
        ViewHandlers views = new ViewHandlers(store, search, snapshots);
        router.route().handler(ctx -> {
            ctx.response().putHeader("Content-Security-Policy", CSP).putHeader("X-Content-Type-Options", "nosniff")
                    .putHeader("Referrer-Policy", "no-referrer");
            ctx.next();
        });
        api(router, "/api/rollouts", api::rollouts);
        api(router, "/api/groups", api::groups);
        api(router, "/api/rollout", api::rollout);
        api(router, "/api/trace", api::trace);
        api(router, "/api/event", api::event);
        api(router, "/api/search", views::search);
        api(router, "/api/lineage", views::lineage);
        api(router, "/api/compare", views::compare);
        api(router, "/api/false-alarm", views::falseAlarm);
        api(router, "/api/workspace", views::workspace);
        router.get("/api/export").blockingHandler(ctx -> export(ctx, store), false);
        router.route("/api/*").handler(ctx -> error(ctx, 404, "no API path " + ctx.request().path()
                + " (the API: /api/rollouts, /api/groups, /api/rollout, /api/trace, /api/event, /api/search, /api/lineage, /api/compare, "
                + "/api/false-alarm, /api/workspace, /api/export)"));
        Assets assets = Assets.load();
        router.get("/").handler(ctx -> assets.serve(ctx, "rollouts.html"));
        router.get("/trace").handler(ctx -> assets.serve(ctx, "trace.html"));
        router.get("/search").handler(ctx -> assets.serve(ctx, "search.html"));
        router.get("/lineage").handler(ctx -> assets.serve(ctx, "lineage.html"));
        router.get("/compare").handler(ctx -> assets.serve(ctx, "compare.html"));
        router.get("/false-alarm").handler(ctx -> assets.serve(ctx, "false-alarm.html"));
        router.get("/workspace").handler(ctx -> assets.serve(ctx, "workspace.html"));
        router.get("/assets/:name").handler(ctx -> assets.serve(ctx, ctx.pathParam("name")));
        router.route().last().handler(ctx -> assets.notFound(ctx));
        router.route().failureHandler(ctx -> {
            LOG.log(Level.WARNING, "console: " + ctx.request().path() + " failed", ctx.failure());
            if (!ctx.response().ended()) {
                int status = ctx.statusCode() > 0 && ctx.statusCode() != 500 ? ctx.statusCode() : 500;
                error(ctx, status, status == 500 ? "the console failed on " + ctx.request().path() + ": " + ctx.failure() : "bad request");
            }
        });
        return router;
    }

    private static void api(Router router, String path, Function<MultiMap, Object> handler) {
        router.get(path).blockingHandler(ctx -> {
            Object body;
            try {
                body = handler.apply(ctx.queryParams());
            } catch (ConsoleError e) {
                error(ctx, e.status(), e.getMessage());
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "console: " + ctx.request().uri() + " failed", e);
                error(ctx, 500, "the console failed on " + ctx.request().path() + ": " + e);
                return;
            }
            try {
                ctx.response().putHeader("Content-Type", "application/json; charset=utf-8").putHeader("Cache-Control", "no-store")
                        .end(JSON.writeValueAsString(body));
            } catch (Exception e) {
                error(ctx, 500, "the console could not write its answer to " + ctx.request().path() + ": " + e);
            }
        }, false);
    }

    /** The selected rollouts as an ATIF bundle (a zip), sent as a download and deleted once sent. */
    private static void export(RoutingContext ctx, RunStore store) {
        AtifBundle.Bundle b;
        try {
            var params = new LinkedHashMap<String, java.util.List<String>>();
            for (String n : ctx.queryParams().names()) params.put(n, ctx.queryParams().getAll(n));
            params.remove("page");
            params.remove("size");
            String query = ctx.request().query() == null ? "" : ctx.request().query();
            b = AtifBundle.write(store, dev.crucible.console.store.RolloutQuery.parse(params), query);
        } catch (ConsoleError e) {
            error(ctx, e.status(), e.getMessage());
            return;
        } catch (Exception e) {
            LOG.log(Level.WARNING, "console: export failed", e);
            error(ctx, 500, "the console could not write the ATIF bundle: " + e);
            return;
        }
        Path zip = b.zip();
        ctx.response().putHeader("Content-Type", "application/zip")
                .putHeader("Content-Disposition", "attachment; filename=\"crucible-atif-" + b.documents() + ".zip\"")
                .sendFile(zip.toString()).onComplete(x -> {
                    try {
                        java.nio.file.Files.deleteIfExists(zip);
                    } catch (java.io.IOException e) {
                        LOG.log(Level.FINE, "console: " + zip + " not deleted", e);
                    }
                });
    }

    static void error(RoutingContext ctx, int status, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.put("status", status);
        String text;
        try {
            text = JSON.writeValueAsString(body);
        } catch (Exception e) {
            text = "{\"error\":\"unwritable error\"}";
        }
        ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json; charset=utf-8").putHeader("Cache-Control", "no-store").end(text);
    }

    public int port() { return server.actualPort(); }

    public String url() {
        String h = host.contains(":") ? "[" + host + "]" : host;
        return "http://" + ("0.0.0.0".equals(host) ? "127.0.0.1" : h) + ":" + port() + "/";
    }

    public RunStore store() { return store; }

    public SearchIndex search() { return search; }

    @Override
    public void close() {
        search.stop();
        indexer.shutdown(); // not shutdownNow: an interrupt in the middle of a Lucene write closes its files under it
        try {
            indexer.awaitTermination(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        search.close();
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.log(Level.FINE, "console: close", e);
        }
    }
}
