package dev.crucible.console.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.ResultFile;
import dev.crucible.console.store.RolloutGroups;
import dev.crucible.console.store.RolloutPage;
import dev.crucible.console.store.RolloutQuery;
import dev.crucible.console.store.RunStore;
import dev.crucible.console.trace.TraceService;
import io.vertx.core.MultiMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What each /api path answers, as a Java value that is written as JSON; a bad parameter throws {@link ConsoleError}. */
final class ApiHandlers {
    /** The parts of result.json the trace view shows beside the timeline (the per-test grading, findings, timings). */
    private static final List<String> RESULT_FIELDS = List.of("rollout", "environment", "group", "attempt", "mode", "phase", "reason",
            "message", "reward", "testReward", "verdict", "flagged", "tests", "hackFindings", "timings", "agent", "sandbox", "trajectory");

    private final RunStore store;

    ApiHandlers(RunStore store) {
        this.store = store;
    }

    Object rollouts(MultiMap q) {
        return RolloutPage.of(store, RolloutQuery.parse(params(q, Set.of())));
    }

    Object groups(MultiMap q) {
        return RolloutGroups.of(store, RolloutQuery.parse(params(q, Set.of())));
    }

    Object rollout(MultiMap q) {
        Map<String, List<String>> p = params(q, Set.of("id"));
        String id = one(p, "id");
        var folder = store.folder(id);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", id);
        out.put("summary", store.summary(id));
        try {
            JsonNode r = ResultFile.read(folder);
            ObjectNode picked = r.deepCopy();
            picked.retain(RESULT_FIELDS);
            out.put("result", picked);
            out.put("problems", List.of());
        } catch (IOException e) {
            out.put("result", null);
            out.put("problems", List.of(e.getMessage()));
        }
        return out;
    }

    Object trace(MultiMap q) {
        Map<String, List<String>> p = params(q, Set.of("id", "from", "limit", "kind"));
        String id = one(p, "id");
        long from = whole(p, "from", 1);
        long limit = whole(p, "limit", 200);
        String kinds = one(p, "kind");
        List<String> k = kinds == null ? List.of() : Arrays.stream(kinds.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
        return TraceService.page(store.folder(id), id, from, (int) Math.min(Integer.MAX_VALUE, limit), k);
    }

    Object event(MultiMap q) {
        Map<String, List<String>> p = params(q, Set.of("id", "seq"));
        String id = one(p, "id");
        if (one(p, "seq") == null) throw ConsoleError.badRequest("seq: the event's number (#N on the timeline) is required");
        return TraceService.event(store.folder(id), id, whole(p, "seq", 1));
    }

    /** The query's parameters; with {@code allowed} not empty, any other is a 400 naming it. */
    static Map<String, List<String>> params(MultiMap q, Set<String> allowed) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String name : q.names()) {
            if (!allowed.isEmpty() && !allowed.contains(name)) {
                throw ConsoleError.badRequest("unknown parameter '" + name + "' (known: " + new java.util.TreeSet<>(allowed) + ")");
            }
            out.put(name, new ArrayList<>(q.getAll(name)));
        }
        return out;
    }

    static String one(Map<String, List<String>> p, String name) {
        List<String> v = p.get(name);
        if (v == null || v.isEmpty() || v.get(0).isBlank()) return null;
        if (v.size() > 1) throw ConsoleError.badRequest(name + ": given " + v.size() + " times, at most once");
        return v.get(0).strip();
    }

    static long whole(Map<String, List<String>> p, String name, long dflt) {
        String s = one(p, name);
        if (s == null) return dflt;
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw ConsoleError.badRequest(name + ": not a whole number: '" + (s.length() > 40 ? s.substring(0, 40) + "…" : s) + "'");
        }
    }
}
