package dev.crucible.probe.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.model.ProbeSpec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The probe's HTTP API on Vert.x: POST /v1/score, GET /v1/models, GET /metrics (Prometheus),
 * GET /healthz. Parsing and tokenizing run on a worker thread so the event loop stays free; the
 * forward pass is shared across requests by the dynamic batcher.
 */
public final class ProbeHttpServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Vertx vertx;
    private final ProbeScorer scorer;
    private final PrometheusMeterRegistry registry;
    private final ScoreRequestParser parser;
    private final ServerLimits limits;
    private final java.util.concurrent.Semaphore inFlight;
    private HttpServer server;

    public ProbeHttpServer(Vertx vertx, ProbeScorer scorer, PrometheusMeterRegistry registry, ServerLimits limits) {
        this.vertx = vertx;
        this.scorer = scorer;
        this.registry = registry;
        this.limits = limits;
        this.parser = new ScoreRequestParser(limits);
        this.inFlight = new java.util.concurrent.Semaphore(limits.maxConcurrent());
    }

    /** Starts listening (port 0 picks a free one) and returns the bound port. */
    public int start(String host, int port) throws Exception {
        Router router = Router.router(vertx);
        // The concurrency cap comes first: a request over it costs no body read, no parse, no forward pass.
        router.post("/v1/score").handler(this::admit);
        router.post("/v1/score").handler(BodyHandler.create(false).setBodyLimit(limits.maxBodyBytes()));
        router.post("/v1/score").handler(this::score);
        router.get("/v1/models").handler(this::models);
        router.get("/healthz").handler(ctx -> json(ctx, 200, JSON.createObjectNode().put("status", "ok")
                .put("device", scorer.model().device())));
        router.get("/metrics").handler(ctx -> ctx.response()
                .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(registry.scrape()));
        router.errorHandler(413, ctx -> error(ctx, 413, "body",
                "request body is larger than " + limits.maxBodyBytes() + " bytes"));
        router.errorHandler(404, ctx -> error(ctx, 404, "path", "no route " + ctx.request().path()));
        router.errorHandler(405, ctx -> error(ctx, 405, "method",
                ctx.request().method() + " is not allowed on " + ctx.request().path()));
        try {
            server = vertx.createHttpServer().requestHandler(router).listen(port, host)
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof java.net.BindException) {
                throw new PortInUseException(host, port);
            }
            throw e;
        }
        return server.actualPort();
    }

    /** 503 + Retry-After when {@code maxConcurrent} requests are already in flight; the permit goes back when the response ends. */
    private void admit(RoutingContext ctx) {
        if (!inFlight.tryAcquire()) {
            Counter.builder("probe_rejected_busy").register(registry).increment();
            ctx.response().putHeader("Retry-After", "1");
            error(ctx, 503, "server", "busy: " + limits.maxConcurrent() + " requests in flight; retry after 1 s");
            return;
        }
        java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                inFlight.release();
            }
        };
        ctx.addEndHandler(v -> release.run());
        ctx.response().closeHandler(v -> release.run());
        ctx.next();
    }

    private record Parsed(List<ScoreItem> items, List<List<long[]>> tokens) {
    }

    private void score(RoutingContext ctx) {
        Timer.Sample sample = Timer.start(registry);
        String body = ctx.body().asString();
        io.vertx.core.Context context = vertx.getOrCreateContext();
        // parsing and tokenizing are CPU work: off the event loop; the answer goes back on it
        vertx.<Parsed>executeBlocking(() -> {
            List<ScoreItem> items = parser.parse(body == null ? "" : body);
            List<List<long[]>> tokens = scorer.tokenize(items);
            requireTokenBudget(tokens);
            return new Parsed(items, tokens);
        }, false)
                .onFailure(e -> finish(ctx, sample, e))
                .onSuccess(p -> scorer.score(p.items(), p.tokens()).whenComplete((results, e) ->
                        context.runOnContext(v -> {
                            if (e != null) {
                                finish(ctx, sample, e);
                            } else {
                                respond(ctx, sample, results);
                            }
                        })));
    }

    /** The compute budget: the forward passes a request asks for, in tokens, after truncation at the model's maxTokens. */
    private void requireTokenBudget(List<List<long[]>> tokens) {
        long total = 0;
        for (List<long[]> item : tokens) {
            for (long[] turn : item) {
                total += turn.length;
            }
        }
        if (total > limits.maxTokensPerRequest()) {
            throw new BadRequest(413, "items", "request needs " + total + " tokens; at most " + limits.maxTokensPerRequest()
                    + " per request (split it)");
        }
    }

    private void respond(RoutingContext ctx, Timer.Sample sample, List<ScoreResult> results) {
        ObjectNode out = JSON.createObjectNode();
        out.put("model", scorer.spec().name());
        ArrayNode arr = out.putArray("results");
        for (ScoreResult r : results) {
            ObjectNode n = arr.addObject();
            n.put("id", r.id());
            n.put("logit", r.logit());
            n.put("probability", r.probability());
            n.put("reward", r.reward());
            n.put("valid", r.valid());
            n.put("tokens", r.tokens());
            ArrayNode hl = n.putArray("headLogits");
            for (double l : r.headLogits()) {
                hl.add(l);
            }
        }
        sample.stop(registry.timer("probe_http_score", "status", "200"));
        json(ctx, 200, out);
    }

    private void finish(RoutingContext ctx, Timer.Sample sample, Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                ? e.getCause() : e;
        if (cause instanceof BadRequest b) {
            sample.stop(registry.timer("probe_http_score", "status", String.valueOf(b.status())));
            error(ctx, b.status(), b.field(), b.getMessage());
        } else {
            sample.stop(registry.timer("probe_http_score", "status", "500"));
            Counter.builder("probe_errors").register(registry).increment();
            error(ctx, 500, "server", "scoring failed: " + cause);
        }
    }

    private void models(RoutingContext ctx) {
        ProbeSpec spec = scorer.spec();
        ObjectNode m = JSON.createObjectNode();
        m.put("name", spec.name());
        m.put("layer", spec.layer());
        m.put("pooling", spec.pooling().name());
        m.put("turnAggregation", spec.turnAggregation().name());
        m.put("device", scorer.model().device());
        m.put("ensemble", "worst_case_min");
        ArrayNode heads = m.putArray("heads");
        for (var bh : scorer.heads()) {
            ProbeHead h = bh.head();
            heads.addObject().put("name", h.name()).put("architecture", h.architecture().id())
                    .put("inputDim", h.inputDim()).put("layer", bh.layer()).put("pooling", bh.pooling().name());
        }
        m.set("reward", ProbeSpec.rewardJson(spec.reward()));
        var ref = scorer.model().spec();
        m.putObject("reference").put("name", ref.name()).put("hiddenSize", ref.hiddenSize())
                .put("numHiddenStates", ref.numHiddenStates()).put("maxTokens", ref.maxTokens());
        ObjectNode out = JSON.createObjectNode();
        out.putArray("models").add(m);
        json(ctx, 200, out);
    }

    private static void error(RoutingContext ctx, int status, String field, String message) {
        json(ctx, status, JSON.createObjectNode().put("error", message).put("field", field));
    }

    private static void json(RoutingContext ctx, int status, Object body) {
        if (ctx.response().ended()) {
            return;
        }
        try {
            ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
                    .end(JSON.writeValueAsString(body));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            ctx.response().setStatusCode(500).end();
        }
    }

    @Override
    public void close() throws Exception {
        if (server != null) {
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
