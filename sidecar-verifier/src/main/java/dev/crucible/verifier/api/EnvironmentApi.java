package dev.crucible.verifier.api;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.crucible.files.UnsafePathException;
import dev.crucible.verifier.EpisodeStateException;
import dev.crucible.verifier.Json;
import dev.crucible.verifier.StepBusyException;
import dev.crucible.verifier.config.ConfigException;
import dev.crucible.verifier.tools.BadToolCallException;
import dev.crucible.verifier.tools.ToolCall;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The environment API over HTTP: POST /v1/reset, /v1/step, /v1/verify; GET /v1/findings, /metrics,
 * /healthz. Work runs on worker threads, unordered, so a second step arriving while one runs reaches
 * the episode's lock and gets 409 instead of queueing behind it.
 *
 * <p>Every endpoint but /healthz needs {@code Authorization: Bearer <token>} (401 without it, before
 * the body is read). /metrics too: its per-detector finding counters would tell an agent on the
 * pod network which of its tricks were seen. /healthz says only whether the API is up and the
 * episode's state, which probes need without a credential.
 *
 * <p>Without an episode holder yet ({@link #settingUp}) the API listens while the environment's setup runs, so a
 * client can read its token at once: every endpoint answers 503 "setting up" until {@link #ready}. After the
 * trainer verified, the host may keep it up {@link #readOnly}: reset and step answer 409, verify (the same
 * report) and findings still answer, and POST /v1/close tells the host the trainer is done.
 */
public final class EnvironmentApi {
    public static final long DEFAULT_MAX_BODY = 2L * 1024 * 1024;
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };

    private final Vertx vertx;
    private volatile EpisodeHolder episodes; // null while the environment is set up
    private volatile String readOnly; // why reset and step are refused now, or null
    private volatile Callable<Object> onClose; // POST /v1/close; null: no such endpoint
    private volatile ApiObserver observer;
    private final SidecarMetrics metrics;
    private final long maxBody;
    private final ApiToken token;
    private HttpServer server;
    /** Requests whose answer is not yet written: {@link #close} waits for them. */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();

    public EnvironmentApi(Vertx vertx, EpisodeHolder episodes, SidecarMetrics metrics, long maxBody, ApiToken token) {
        this.vertx = vertx;
        this.episodes = episodes;
        this.metrics = metrics;
        this.maxBody = maxBody;
        this.token = java.util.Objects.requireNonNull(token, "token: the environment API always needs one");
    }

    /** An API that answers 503 "setting up" (but /healthz, with state SETTING_UP) until {@link #ready}. */
    public static EnvironmentApi settingUp(Vertx vertx, SidecarMetrics metrics, long maxBody, ApiToken token) {
        return new EnvironmentApi(vertx, null, metrics, maxBody, token);
    }

    /** Setup is done: requests reach {@code holder}'s episode from now on. */
    public void ready(EpisodeHolder holder) { episodes = java.util.Objects.requireNonNull(holder); }

    /** Reset and step answer 409 with {@code why} from now on; verify, findings and /v1/close still answer. */
    public void readOnly(String why) { readOnly = why; }

    /** Merges a handed-in ATIF document into the trajectory; the number of steps merged. */
    public interface TrajectoryHandIn {
        int merge(byte[] doc) throws dev.crucible.trajectory.HandedInTrajectory.Refused;
    }

    private volatile TrajectoryHandIn handIn;

    /** What POST /v1/trajectory does (the agent framework's own steps); unset: that endpoint answers 404. */
    public void onTrajectory(TrajectoryHandIn h) { handIn = h; }

    /** What POST /v1/close runs (its answer the body; an {@link EpisodeStateException} a 409). */
    public void onClose(Callable<Object> c) { onClose = c; }

    public Router router() {
        Router r = Router.router(vertx);
        r.route().handler(ctx -> {
            inFlight.incrementAndGet();
            ctx.addEndHandler(done -> inFlight.decrementAndGet()); // written, failed, or the client went away
            ctx.next();
        });
        r.route().handler(this::authenticate);
        r.route().handler(this::gate);
        r.route().handler(BodyHandler.create(false).setBodyLimit(maxBody));
        r.post("/v1/reset").handler(ctx -> blocking(ctx, traced("reset", null, () -> episodes.reset())));
        r.post("/v1/step").handler(this::step);
        r.post("/v1/verify").handler(ctx -> blocking(ctx, traced("verify", null, () -> {
            long t0 = System.nanoTime();
            var report = episodes.current().verify();
            metrics.verify(report.verdict(), report.reward(), Duration.ofNanos(System.nanoTime() - t0));
            return report;
        })));
        r.post("/v1/trajectory").handler(ctx -> {
            TrajectoryHandIn h = handIn;
            byte[] doc = ctx.body() == null || ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes();
            if (h == null) error(ctx, 404, "no trajectory is recorded here: POST /v1/trajectory has nothing to merge into");
            else blocking(ctx, () -> Map.of("merged", h.merge(doc))); // steps stored: fewer than sent past the cap or after the run
        });
        r.get("/v1/findings").handler(ctx -> blocking(ctx, () -> Map.of("findings", episodes.findings())));
        r.post("/v1/close").handler(ctx -> {
            Callable<Object> c = onClose;
            if (c == null) error(ctx, 404, "no such endpoint: POST /v1/close (the host ends this API itself)");
            else blocking(ctx, c);
        });
        r.get("/metrics").handler(ctx -> ctx.response().putHeader("content-type", "text/plain; version=0.0.4").end(metrics.scrape()));
        r.get("/healthz").handler(ctx -> json(ctx, 200, Map.of("status", "ok", "state", episodes.state())));
        r.route().last().handler(ctx -> error(ctx, 404, "no such endpoint: " + ctx.request().method() + " " + ctx.request().path()));
        r.errorHandler(413, ctx -> {
            metrics.rejected("too-large");
            error(ctx, 413, "request body larger than " + maxBody + " bytes");
        });
        r.errorHandler(405, ctx -> error(ctx, 405, "method not allowed"));
        return r;
    }

    public Future<HttpServer> listen(String host, int port) {
        return vertx.createHttpServer(new HttpServerOptions().setMaxInitialLineLength(8192))
                .requestHandler(router()).listen(port, host).onSuccess(s -> server = s);
    }

    public int port() { return server == null ? -1 : server.actualPort(); }

    /** {@link #close(Duration)} with 5 s of grace. */
    public Future<Void> close() { return close(Duration.ofSeconds(5)); }

    /**
     * Closes once every answer in flight is written, or after {@code grace}: the run ends the moment a trainer's
     * /v1/verify grades, and closing at once cut that very answer off (the client saw the connection reset).
     */
    public Future<Void> close(Duration grace) {
        if (server == null) return Future.succeededFuture();
        io.vertx.core.Promise<Void> closed = io.vertx.core.Promise.promise();
        closeWhenIdle(System.nanoTime() + grace.toNanos(), closed);
        return closed.future();
    }

    private void closeWhenIdle(long until, io.vertx.core.Promise<Void> closed) {
        if (inFlight.get() <= 0 || System.nanoTime() > until) {
            server.close().onComplete(closed);
        } else {
            vertx.setTimer(20, t -> closeWhenIdle(until, closed));
        }
    }

    private void authenticate(RoutingContext ctx) {
        if ("/healthz".equals(ctx.normalizedPath()) || token.accepts(ctx.request().getHeader("Authorization"))) {
            ctx.next();
            return;
        }
        metrics.rejected("unauthorized");
        ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"crucible\"");
        error(ctx, 401, "missing or wrong bearer token (Authorization: Bearer <token>)");
    }

    /** 503 while setting up (a client retries; nothing ran), 409 for reset and step once read-only. */
    private void gate(RoutingContext ctx) {
        String path = ctx.normalizedPath();
        if (episodes == null && !"/metrics".equals(path)) {
            ctx.response().putHeader("Retry-After", "1");
            if ("/healthz".equals(path)) json(ctx, 503, Map.of("status", "setting-up", "state", "SETTING_UP"));
            else error(ctx, 503, "setting up: the environment's setup is still running; retry (GET /healthz answers 200 once ready)");
            return;
        }
        String ro = readOnly;
        if (ro != null && ("/v1/reset".equals(path) || "/v1/step".equals(path))) {
            metrics.rejected("state");
            error(ctx, 409, ro);
            return;
        }
        ctx.next();
    }

    private void step(RoutingContext ctx) {
        ToolCall call;
        try {
            call = parseCall(ctx);
        } catch (BadToolCallException e) {
            metrics.rejected("bad-request");
            error(ctx, 400, e.getMessage());
            return;
        }
        long t0 = System.nanoTime();
        // the phases recorder wraps the trajectory's append too: it is part of what a step costs
        blocking(ctx, () -> StepPhases.record(t0, traced("step", call, () -> {
            String outcome = "error";
            try {
                var r = episodes.current().step(call);
                outcome = r.exitCode() == 0 ? "ok" : "nonzero";
                r.findings().forEach(f -> metrics.finding(f.detector()));
                return r;
            } catch (StepBusyException e) {
                outcome = "busy";
                throw e;
            } finally {
                metrics.step(call.tool(), outcome, Duration.ofNanos(System.nanoTime() - t0));
            }
        })));
    }

    /** Every reset, step and verify from now on goes to {@code o} as well (the rollout's trajectory); null stops it. */
    public void observe(ApiObserver o) { observer = o; }

    private <T> Callable<T> traced(String endpoint, ToolCall call, Callable<T> work) {
        return () -> {
            ApiObserver o = observer;
            if (o == null) return work.call();
            java.time.Instant start = java.time.Instant.now();
            long t0 = System.nanoTime();
            T result = null;
            String error = null;
            try {
                result = work.call();
                return result;
            } catch (Exception | Error e) {
                error = e.getClass().getSimpleName() + ": " + e.getMessage();
                throw e;
            } finally {
                long t1 = System.nanoTime();
                try {
                    o.called(endpoint, call, result, error, start, (t1 - t0) / 1_000_000);
                } catch (RuntimeException ignored) {
                    // the trajectory's trouble never fails a call
                }
                dev.crucible.verifier.exec.GradingPhases.since("trajectory", t1);
            }
        };
    }

    /** Accepts {"tool": .., "args": {..}} or the arguments flat beside "tool". */
    static ToolCall parseCall(RoutingContext ctx) {
        String body = ctx.body() == null ? null : ctx.body().asString();
        if (body == null || body.isBlank()) throw new BadToolCallException("body: a JSON object with \"tool\" and \"args\" is required");
        Map<String, Object> m;
        try {
            m = Json.MAPPER.readValue(body, MAP);
        } catch (Exception e) {
            throw new BadToolCallException("body: not a JSON object: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (m == null) throw new BadToolCallException("body: a JSON object is required");
        if (!(m.get("tool") instanceof String tool)) throw new BadToolCallException("tool: required string, one of bash, read_file, write_file, edit, list");
        Object args = m.get("args");
        if (args != null && !(args instanceof Map)) throw new BadToolCallException("args: must be an object");
        Map<String, Object> a = new LinkedHashMap<>();
        if (args instanceof Map<?, ?> am) am.forEach((k, v) -> a.put(String.valueOf(k), v));
        else m.forEach((k, v) -> { if (!k.equals("tool")) a.put(k, v); });
        a.values().removeIf(v -> v == null);
        return new ToolCall(tool, a);
    }

    private <T> void blocking(RoutingContext ctx, Callable<T> work) {
        vertx.<T>executeBlocking(work, false).onComplete(ar -> {
            if (ar.succeeded()) {
                json(ctx, 200, ar.result());
                return;
            }
            Throwable t = ar.cause();
            if (t instanceof StepBusyException || t instanceof EpisodeStateException) {
                metrics.rejected(t instanceof StepBusyException ? "busy" : "state");
                error(ctx, 409, t.getMessage());
            } else if (t instanceof BadToolCallException || t instanceof ConfigException || t instanceof UnsafePathException
                    || t instanceof dev.crucible.trajectory.HandedInTrajectory.Refused) {
                metrics.rejected("bad-request");
                error(ctx, 400, t.getMessage());
            } else {
                error(ctx, 500, t.getClass().getSimpleName() + ": " + t.getMessage());
            }
        });
    }

    private static void json(RoutingContext ctx, int status, Object body) {
        if (ctx.response().ended()) return;
        ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(Json.write(body, false));
    }

    private static void error(RoutingContext ctx, int status, String message) {
        json(ctx, status, Map.of("error", message == null ? "error" : message, "status", status));
    }
}
