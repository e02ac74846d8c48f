package dev.crucible.console.http;

import dev.crucible.files.TreeDelete;

import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.RolloutSummary;
import dev.crucible.console.store.RunStore;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The local console's pages over the cluster (issue 37, cluster mode): the same HTML and scripts and the same API
 * paths, answered by the same handlers, but each request first mirrors what the caller may see, asked with the
 * caller's own bearer token, into a folder of its own ({@link Source}), deleted once answered. So nothing one person
 * may see is ever kept where another's request could read it, and the console holds no power of its own. A rollout's
 * id is {@code namespace/name}. No token: 401, which the pages answer with their token form.
 */
public final class ClusterPages {
    private static final Logger LOG = Logger.getLogger(ClusterPages.class.getName());

    /** What the caller may see, mirrored into a temporary RUNS folder (the layout {@code crucible run} writes). */
    public interface Source {
        /** The rollouts of the namespaces the caller may list (and those asked for in {@code namespaces}). */
        Mirror rollouts(String token, List<String> namespaces);

        /** One rollout with its trajectory's segments; with {@code blobsOfSeq} > 0, the blobs that event refers to. */
        Mirror rollout(String token, String namespace, String name, long blobsOfSeq);

        /**
         * Every rollout the caller may see (listed in memory) and, in the folder, the stored trajectories of those
         * {@code withTrajectory} picks, at most {@code max} of them and {@code maxBytes} of stored segments together (the
         * rest counted as left out); with {@code snapshots}, each
         * rollout's RolloutSnapshots as its result.json's {@code snapshots} (the lineage's edges).
         */
        Mirror select(String token, List<String> namespaces, java.util.function.Predicate<RolloutSummary> withTrajectory, int max,
                      long maxBytes, boolean snapshots);
    }

    /**
     * A mirror folder and what the answer adds (e.g. the refused namespaces); {@link #close()} deletes the folder.
     * {@code listed}: the rollouts themselves when they are not written into the folder (the list, built in memory).
     */
    /** {@code bands}: the listed environments' learnable bands (empty: each at the default). */
    public record Mirror(Path runs, Map<String, Object> extra, List<RolloutSummary> listed,
                         Map<String, dev.crucible.console.store.LearnableBands.Band> bands) implements AutoCloseable {
        public Mirror(Path runs, Map<String, Object> extra) {
            this(runs, extra, null);
        }

        public Mirror(Path runs, Map<String, Object> extra, List<RolloutSummary> listed) {
            this(runs, extra, listed, Map.of());
        }

        @Override
        public void close() {
            try {
                TreeDelete.delete(runs);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "console: mirror " + runs + " not deleted", e);
            }
        }
    }

    private ClusterPages() {}

    /** An action that writes to the cluster with the caller's token (the revert): its answer, or a {@link ConsoleError}. */
    public interface Action {
        Object run(String token, com.fasterxml.jackson.databind.JsonNode body);
    }

    /** Mounts the pages, their assets and the API they read on {@code router} (after any route added before). */
    public static void mount(Router router, Source source) {
        mount(router, source, null);
    }

    /** As {@link #mount(Router, Source)}, with {@code revert} answering {@code POST /api/revert} (null: none). */
    public static void mount(Router router, Source source, Action revert) {
        router.route().handler(ctx -> {
            ctx.response().putHeader("Content-Security-Policy", ConsoleServer.CSP).putHeader("X-Content-Type-Options", "nosniff")
                    .putHeader("Referrer-Policy", "no-referrer");
            ctx.next();
        });
        api(router, "/api/rollouts", (token, q) -> list(source, token, q, true));
        api(router, "/api/groups", (token, q) -> list(source, token, q, false));
        api(router, "/api/rollout", (token, q) -> one(source, token, q, 0, ApiHandlers::rollout));
        api(router, "/api/trace", (token, q) -> one(source, token, q, 0, ApiHandlers::trace));
        api(router, "/api/event", (token, q) -> {
            long seq = ApiHandlers.whole(ApiHandlers.params(q, java.util.Set.of()), "seq", 0);
            return one(source, token, q, Math.max(0, seq), ApiHandlers::event);
        });
        ClusterViews views = new ClusterViews(source);
        api(router, "/api/search", views::search);
        api(router, "/api/lineage", views::lineage);
        api(router, "/api/compare", views::compare);
        api(router, "/api/false-alarm", views::falseAlarm);
        router.get("/api/export").blockingHandler(ctx -> export(ctx, views), false);
        if (revert != null) {
            router.post("/api/revert").handler(io.vertx.ext.web.handler.BodyHandler.create().setBodyLimit(4L << 20));
            router.post("/api/revert").blockingHandler(ctx -> {
                Object body;
                try {
                    com.fasterxml.jackson.databind.JsonNode in;
                    try {
                        in = ConsoleServer.JSON.readTree(ctx.body().asString());
                    } catch (Exception e) {
                        throw ConsoleError.badRequest("the request body is not JSON: " + e.getMessage());
                    }
                    body = revert.run(token(ctx), in);
                } catch (ConsoleError e) {
                    error(ctx, e.status(), e.getMessage());
                    return;
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "console: revert failed", e);
                    error(ctx, 500, "the console failed on the revert: " + e);
                    return;
                }
                try {
                    ctx.response().setStatusCode(201).putHeader("Content-Type", "application/json; charset=utf-8")
                            .putHeader("Cache-Control", "no-store").end(ConsoleServer.JSON.writeValueAsString(body));
                } catch (Exception e) {
                    error(ctx, 500, "the console could not write its answer: " + e);
                }
            }, false);
        }
        router.route("/api/*").handler(ctx -> error(ctx, 404, "no API path " + ctx.request().path() + " (the cluster console answers "
                + "/api/rollouts, /api/groups, /api/rollout, /api/trace, /api/event, /api/search, /api/lineage, /api/compare, "
                + "/api/false-alarm, /api/export, POST /api/revert)"));
        Assets assets = Assets.load();
        router.get("/").handler(ctx -> assets.serve(ctx, "rollouts.html"));
        router.get("/trace").handler(ctx -> assets.serve(ctx, "trace.html"));
        for (String page : List.of("search", "lineage", "compare", "false-alarm")) {
            router.get("/" + page).handler(ctx -> assets.serve(ctx, page + ".html"));
        }
        router.get("/assets/:name").handler(ctx -> assets.serve(ctx, ctx.pathParam("name")));
        router.route().last().handler(assets::notFound);
    }

    private interface Handler {
        Object answer(String token, MultiMap q);
    }

    private static Object list(Source source, String token, MultiMap q, boolean page) {
        MultiMap rest = MultiMap.caseInsensitiveMultiMap().addAll(q);
        rest.remove("namespace");
        List<String> namespaces = q.getAll("namespace").stream().flatMap(s -> java.util.Arrays.stream(s.split(",")))
                .map(String::strip).filter(s -> !s.isEmpty()).toList();
        try (Mirror m = source.rollouts(token, namespaces)) {
            ApiHandlers h = new ApiHandlers(store(m));
            Object body = page ? h.rollouts(rest) : h.groups(rest);
            Map<String, Object> out = new LinkedHashMap<>(ConsoleServer.JSON.convertValue(body, Map.class));
            out.putAll(m.extra());
            return out;
        }
    }

    private interface One {
        Object answer(ApiHandlers h, MultiMap q);
    }

    private static Object one(Source source, String token, MultiMap q, long blobsOfSeq, One handler) {
        String id = ApiHandlers.one(ApiHandlers.params(q, java.util.Set.of()), "id");
        if (id == null) throw ConsoleError.badRequest("id: the rollout's id (namespace/name) is required");
        int slash = id.indexOf('/');
        if (slash < 1 || slash != id.lastIndexOf('/')) {
            throw ConsoleError.badRequest("id: '" + (id.length() > 80 ? id.substring(0, 80) + "…" : id) + "' is not namespace/name");
        }
        try (Mirror m = source.rollout(token, id.substring(0, slash), id.substring(slash + 1), blobsOfSeq)) {
            Object body = handler.answer(new ApiHandlers(store(m)), q);
            Map<String, Object> out = new LinkedHashMap<>(ConsoleServer.JSON.convertValue(body, Map.class));
            out.putAll(m.extra());
            return out;
        }
    }

    /** The ATIF bundle of the selected rollouts, sent as a download and deleted once sent. */
    private static void export(RoutingContext ctx, ClusterViews views) {
        AtifBundle.Bundle b;
        try {
            b = views.export(token(ctx), ctx.queryParams());
        } catch (ConsoleError e) {
            error(ctx, e.status(), e.getMessage());
            return;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "console: export failed", e);
            error(ctx, 500, "the console could not write the ATIF bundle: " + e);
            return;
        }
        Path zip = b.zip();
        ctx.response().putHeader("Content-Type", "application/zip").putHeader("Cache-Control", "no-store")
                .putHeader("Content-Disposition", "attachment; filename=\"crucible-atif-" + b.documents() + ".zip\"")
                .sendFile(zip.toString()).onComplete(x -> {
                    try {
                        java.nio.file.Files.deleteIfExists(zip);
                    } catch (IOException e) {
                        LOG.log(Level.FINE, "console: " + zip + " not deleted", e);
                    }
                });
    }

    private static RunStore store(Mirror m) {
        try {
            return m.listed() != null ? RunStore.of(m.runs(), m.listed(), m.bands()) : new RunStore(m.runs(), Long.MAX_VALUE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void api(Router router, String path, Handler handler) {
        router.get(path).blockingHandler(ctx -> {
            Object body;
            try {
                body = handler.answer(token(ctx), ctx.queryParams());
            } catch (ConsoleError e) {
                error(ctx, e.status(), e.getMessage());
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "console: " + ctx.request().path() + " failed", e);
                error(ctx, 500, "the console failed on " + ctx.request().path() + ": " + e);
                return;
            }
            try {
                ctx.response().putHeader("Content-Type", "application/json; charset=utf-8").putHeader("Cache-Control", "no-store")
                        .end(ConsoleServer.JSON.writeValueAsString(body));
            } catch (Exception e) {
                error(ctx, 500, "the console could not write its answer to " + ctx.request().path() + ": " + e);
            }
        }, false);
    }

    /** As the local console's errors, marked {@code cluster} so the page shows the log-out link and the cluster's actions. */
    private static void error(RoutingContext ctx, int status, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.put("status", status);
        body.put("cluster", true);
        String text;
        try {
            text = ConsoleServer.JSON.writeValueAsString(body);
        } catch (Exception e) {
            text = "{\"error\":\"unwritable error\",\"cluster\":true}";
        }
        ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json; charset=utf-8").putHeader("Cache-Control", "no-store").end(text);
    }

    /** The caller's bearer token; none: 401, which the pages answer with their token form. */
    public static String token(RoutingContext ctx) {
        String h = ctx.request().getHeader("Authorization");
        if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7) || h.substring(7).isBlank()) {
            throw new ConsoleError(401, "no bearer token: log in with your Kubernetes token (kubectl create token NAME, "
                    + "or the token in your kubeconfig); the console sends it as yours to the API server and the trace store");
        }
        return h.substring(7).trim();
    }
}
