package dev.crucible.console.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The console's pages, script and style, read once from this jar: a fixed list of names, so no request path is ever
 * resolved against a folder. Nothing is fetched from anywhere else (no CDN): the console works in an air-gapped place.
 */
final class Assets {
    static final String ROOT = "dev/crucible/console/web/";
    private static final Map<String, String> TYPES = types("console.css", "common.js", "rollouts.html", "rollouts.js", "trace.html",
            "trace.js", "search.html", "search.js", "lineage.html", "lineage.js", "compare.html", "compare.js", "false-alarm.html",
            "false-alarm.js", "workspace.html", "workspace.js");

    private static Map<String, String> types(String... names) {
        Map<String, String> t = new HashMap<>();
        for (String n : names) {
            t.put(n, (n.endsWith(".html") ? "text/html" : n.endsWith(".css") ? "text/css" : "text/javascript") + "; charset=utf-8");
        }
        return Map.copyOf(t);
    }

    private final Map<String, Buffer> bodies;

    private Assets(Map<String, Buffer> bodies) {
        this.bodies = bodies;
    }

    static Assets load() {
        Map<String, Buffer> b = new HashMap<>();
        for (String name : TYPES.keySet()) {
            try (InputStream in = Assets.class.getClassLoader().getResourceAsStream(ROOT + name)) {
                if (in == null) throw new IllegalStateException("the console's asset " + ROOT + name + " is missing from the jar");
                b.put(name, Buffer.buffer(in.readAllBytes()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new Assets(b);
    }

    void serve(RoutingContext ctx, String name) {
        Buffer body = bodies.get(name);
        if (body == null) {
            notFound(ctx);
            return;
        }
        ctx.response().putHeader("Content-Type", TYPES.get(name)).putHeader("Cache-Control", "no-cache").end(body);
    }

    /** An unknown path: JSON for the API, else a page that says so and links back (never a blank screen). */
    void notFound(RoutingContext ctx) {
        String path = ctx.request().path();
        if (path.startsWith("/api/")) {
            ConsoleServer.error(ctx, 404, "no API path " + path);
            return;
        }
        String shown = path.length() > 200 ? path.substring(0, 200) + "…" : path;
        ctx.response().setStatusCode(404).putHeader("Content-Type", "text/html; charset=utf-8").end("<!doctype html><html><head>"
                + "<meta charset=\"utf-8\"><title>Not found · Crucible console</title><link rel=\"stylesheet\" href=\"/assets/console.css\">"
                + "</head><body><header><a class=\"brand\" href=\"/\">Crucible console</a></header><main><p class=\"error\" id=\"error\">"
                + "No page at " + escape(shown) + ". The console has <a href=\"/\">the rollouts view</a> and the trace view "
                + "(<code>/trace?rollout=ID</code>).</p></main></body></html>");
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
