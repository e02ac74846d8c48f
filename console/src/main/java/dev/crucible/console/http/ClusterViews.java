package dev.crucible.console.http;

import dev.crucible.console.search.SearchIndex;
import dev.crucible.console.search.SearchQuery;
import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.RolloutQuery;
import dev.crucible.console.store.RolloutSummary;
import dev.crucible.console.store.RunStore;
import io.vertx.core.MultiMap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Search, the snapshot lineage, side by side, false alarm and the ATIF export over the cluster: each request mirrors
 * what it reads, asked with the caller's own token ({@link ClusterPages.Source#select}), into a folder of its own, and the
 * local console's code answers over it; the folder is deleted once answered. Nothing is kept between two people's
 * requests (the console has no power of its own to keep an index of the whole store for everyone): a search reads and
 * indexes the stored trajectories the caller may see on each request, at most {@link #MAX_SEARCHED} of them and
 * {@link #MAX_SEARCHED_BYTES} (the filters narrow which, and the answer says how many were left out).
 */
final class ClusterViews {
    /** Rollouts whose trajectories one search reads (the rest are counted in {@code trajectoriesLeftOut}). */
    static final int MAX_SEARCHED = 200;
    /**
     * And their stored segments together, at most: each search copies and indexes them again (about 280,000 events;
     * 10 to 20 s on the busy build machine), so a person narrows a search of a big store with the filters.
     */
    static final long MAX_SEARCHED_BYTES = 64L << 20;
    /** Rollouts of a lineage whose trajectories are read (for the snapshot events' steps and whether a branch is a revert). */
    static final int MAX_LINEAGE_TRAJECTORIES = 50;

    private final ClusterPages.Source source;

    ClusterViews(ClusterPages.Source source) {
        this.source = source;
    }

    Object search(String token, MultiMap q) {
        Map<String, List<String>> p = ApiHandlers.params(q, Set.of());
        List<String> namespaces = namespaces(p.remove("namespace"));
        SearchQuery query = SearchQuery.parse(p);
        Map<String, String> f = query.filters();
        Predicate<RolloutSummary> pick = r -> (!f.containsKey("environment") || f.get("environment").equals(r.environment()))
                && (!f.containsKey("phase") || f.get("phase").equals(r.phase()))
                && (!f.containsKey("rollout") || f.get("rollout").equals(r.id()))
                && (!f.containsKey("detector") || r.findings().stream().anyMatch(x -> f.get("detector").equals(x.detector())));
        try (ClusterPages.Mirror m = source.select(token, namespaces, pick, MAX_SEARCHED, MAX_SEARCHED_BYTES, false)) {
            RunStore store = RunStore.of(m.runs(), mirrored(m));
            Path dir = Files.createTempDirectory("crucible-console-search-");
            Object answer;
            try (SearchIndex index = new SearchIndex(store, dir, true)) {
                index.sync();
                answer = query.run(index);
            }
            return with(answer, m.extra());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Object lineage(String token, MultiMap q) {
        Map<String, List<String>> p = ApiHandlers.params(q, Set.of("id"));
        String id = required(p, "id", "the rollout's id (namespace/name)");
        String ns = namespaceOf(id);
        Predicate<RolloutSummary> pick = r -> r.id().startsWith(ns + "/") && (r.restoredFrom() != null || !r.snapshots().isEmpty());
        try (ClusterPages.Mirror m = source.select(token, List.of(ns), pick, MAX_LINEAGE_TRAJECTORIES, Long.MAX_VALUE, true)) {
            visible(m, id);
            return with(new ViewHandlers(RunStore.of(m.runs(), m.listed()), null).lineage(q), m.extra());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Object compare(String token, MultiMap q) {
        Map<String, List<String>> p = ApiHandlers.params(q, Set.of("a", "b", "from", "limit"));
        String a = required(p, "a", "the first rollout's id (namespace/name)");
        String b = ApiHandlers.one(p, "b");
        List<String> namespaces = b == null ? List.of(namespaceOf(a)) : List.of(namespaceOf(a), namespaceOf(b));
        try (ClusterPages.Mirror m = source.select(token, namespaces, r -> r.id().equals(a) || r.id().equals(b), 2, Long.MAX_VALUE, false)) {
            visible(m, a);
            if (b != null) visible(m, b);
            return with(new ViewHandlers(RunStore.of(m.runs(), m.listed()), null).compare(q), m.extra());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Object falseAlarm(String token, MultiMap q) {
        Map<String, List<String>> p = ApiHandlers.params(q, Set.of("id", "seq"));
        String id = required(p, "id", "the rollout's id (namespace/name)");
        try (ClusterPages.Mirror m = source.select(token, List.of(namespaceOf(id)), r -> r.id().equals(id), 1, Long.MAX_VALUE, false)) {
            visible(m, id);
            return with(new ViewHandlers(RunStore.of(m.runs(), m.listed()), null).falseAlarm(q), m.extra());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The selected rollouts' trajectories as an ATIF bundle (a zip file the caller deletes once sent). */
    AtifBundle.Bundle export(String token, MultiMap q) {
        Map<String, List<String>> p = ApiHandlers.params(q, Set.of());
        List<String> namespaces = namespaces(p.remove("namespace"));
        p.remove("page");
        p.remove("size");
        RolloutQuery query = RolloutQuery.parse(p);
        try (ClusterPages.Mirror m = source.select(token, namespaces, query::matches, AtifBundle.MAX_ROLLOUTS, Long.MAX_VALUE, false)) {
            Object left = m.extra().get("trajectoriesLeftOut");
            if (left != null) {
                throw ConsoleError.badRequest("more than " + AtifBundle.MAX_ROLLOUTS + " rollouts match; an ATIF bundle holds at most "
                        + AtifBundle.MAX_ROLLOUTS + ": narrow the filters");
            }
            return AtifBundle.write(RunStore.of(m.runs(), m.listed()), query, "cluster: " + m.extra().get("dir")
                    + (q.isEmpty() ? "" : ", " + q.names().stream().map(n -> n + "=" + String.join(",", q.getAll(n))).toList()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The rollouts whose folder the mirror wrote (their trajectories are in it). */
    private static List<RolloutSummary> mirrored(ClusterPages.Mirror m) {
        List<RolloutSummary> out = new ArrayList<>();
        for (RolloutSummary r : m.listed()) if (Files.isDirectory(m.runs().resolve(r.id()))) out.add(r);
        return out;
    }

    /** 403 when the rollout's namespace was refused, 404 when the caller sees no such rollout. */
    private static void visible(ClusterPages.Mirror m, String id) {
        String ns = namespaceOf(id);
        if (m.extra().get("refusedNamespaces") instanceof List<?> refused && refused.contains(ns)) {
            throw new ConsoleError(403, "you may not see rollout " + id + ": the API server refuses your token a list of Rollouts in "
                    + "namespace " + ns + " (ask for get/list on rollouts.crucible.dev there)");
        }
        if (m.listed().stream().noneMatch(r -> r.id().equals(id))) {
            throw ConsoleError.notFound("no rollout " + id + " among those you may see (neither live in the API server nor stored in the trace store)");
        }
    }

    static String namespaceOf(String id) {
        int slash = id.indexOf('/');
        if (slash < 1 || slash != id.lastIndexOf('/')) {
            throw ConsoleError.badRequest("'" + (id.length() > 80 ? id.substring(0, 80) + "…" : id) + "' is not namespace/name");
        }
        return id.substring(0, slash);
    }

    private static List<String> namespaces(List<String> given) {
        if (given == null) return List.of();
        return given.stream().flatMap(s -> java.util.Arrays.stream(s.split(","))).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    private static String required(Map<String, List<String>> p, String name, String what) {
        String v = ApiHandlers.one(p, name);
        if (v == null) throw ConsoleError.badRequest(name + ": " + what + " is required");
        return v;
    }

    @SuppressWarnings("unchecked")
    private static Object with(Object body, Map<String, Object> extra) {
        Map<String, Object> out = new LinkedHashMap<>(ConsoleServer.JSON.convertValue(body, Map.class));
        out.putAll(extra);
        return out;
    }
}
