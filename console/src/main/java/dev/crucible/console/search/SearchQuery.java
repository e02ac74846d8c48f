package dev.crucible.console.search;

import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.RolloutSummary;
import dev.crucible.trajectory.EventKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;

/**
 * One full-text search: {@code q} (every word must be in the event; "quoted words" in that order; punctuation splits
 * words, so {@code rep.outcome} finds the words rep then outcome, as in the code) and the filters {@code environment},
 * {@code phase}, {@code detector} (rollouts with a finding of it), {@code kind} (event kind, e.g. file or output) and
 * {@code rollout}. The answer groups the best {@link #MAX_HITS} matching events by rollout, best rollout first, a page
 * of rollouts with at most {@link #EVENTS_PER_ROLLOUT} events each. Bad input is a 400 naming the parameter.
 */
public record SearchQuery(String q, List<List<String>> phrases, Map<String, String> filters, int page, int size) {
    public static final Set<String> PARAMETERS = Set.of("q", "environment", "phase", "detector", "kind", "rollout", "page", "size");
    static final List<String> FILTERS = List.of("environment", "phase", "detector", "kind", "rollout");
    public static final int MAX_Q = 500;
    public static final int MAX_HITS = 5000;
    public static final int EVENTS_PER_ROLLOUT = 5;
    private static final Pattern PART = Pattern.compile("\"([^\"]*)\"|(\\S+)");

    /** Lower-case words of letters and digits: what the index holds of a text, and what a query is cut into. */
    public static String words(String text) {
        return text.replaceAll("[^\\p{L}\\p{N}]+", " ").toLowerCase(Locale.ROOT);
    }

    public static SearchQuery parse(Map<String, List<String>> p) {
        for (String k : p.keySet()) {
            if (!PARAMETERS.contains(k)) throw ConsoleError.badRequest("unknown parameter '" + k + "' (known: " + new TreeSet<>(PARAMETERS) + ")");
        }
        String q = one(p, "q");
        if (q == null) throw ConsoleError.badRequest("q: the words to search for are required (in commands, outputs, diffs and findings)");
        if (q.length() > MAX_Q) throw ConsoleError.badRequest("q: " + q.length() + " characters, at most " + MAX_Q);
        List<List<String>> phrases = new ArrayList<>();
        Matcher m = PART.matcher(q);
        while (m.find()) {
            String part = m.group(1) != null ? m.group(1) : m.group(2);
            List<String> w = new ArrayList<>();
            for (String t : words(part).split(" ")) if (!t.isEmpty()) w.add(t.length() > 255 ? t.substring(0, 255) : t);
            if (!w.isEmpty()) phrases.add(w);
        }
        if (phrases.isEmpty()) throw ConsoleError.badRequest("q: '" + clip(q) + "' has no letters or digits to search for");
        Map<String, String> filters = new LinkedHashMap<>();
        for (String f : FILTERS) if (one(p, f) != null) filters.put(f, one(p, f));
        String kind = filters.get("kind");
        if (kind != null && !EventKind.ALL.contains(kind)) {
            throw ConsoleError.badRequest("kind: '" + clip(kind) + "' is no event kind (known: " + new TreeSet<>(EventKind.ALL) + ")");
        }
        return new SearchQuery(q, phrases, filters, whole(p, "page", 1, 1, 10_000), whole(p, "size", 20, 1, 100));
    }

    /** One matching event: its link is /trace?rollout=ID&event=SEQ. */
    public record Hit(long seq, String kind, String summary, String snippet) {}

    public record RolloutHits(String id, String environment, String phase, Double reward, int hits, List<Hit> events) {}

    public record Answer(String q, Map<String, String> filters, long matches, boolean capped, int rollouts, int page, int size, int pages,
                         List<RolloutHits> items, SearchIndex.Progress indexing, double tookMs) {}

    public Answer run(SearchIndex index) {
        long t0 = System.nanoTime();
        Query query = query();
        try {
            return index.withSearcher(s -> {
                TopDocs top = s.search(query, MAX_HITS);
                Map<String, List<ScoreDoc>> byRollout = new LinkedHashMap<>();
                for (ScoreDoc sd : top.scoreDocs) {
                    String id = s.storedFields().document(sd.doc, Set.of("rollout")).get("rollout");
                    byRollout.computeIfAbsent(id, k -> new ArrayList<>()).add(sd);
                }
                List<String> ids = new ArrayList<>(byRollout.keySet());
                int pages = Math.max(1, (ids.size() + size - 1) / size);
                List<RolloutHits> items = new ArrayList<>();
                Map<String, RolloutSummary> summaries = index.store().index().byId();
                for (String id : ids.subList(Math.min(ids.size(), (page - 1) * size), Math.min(ids.size(), page * size))) {
                    List<Hit> hits = new ArrayList<>();
                    for (ScoreDoc sd : byRollout.get(id).subList(0, Math.min(EVENTS_PER_ROLLOUT, byRollout.get(id).size()))) {
                        Document d = s.storedFields().document(sd.doc);
                        hits.add(new Hit(d.getField("seq").numericValue().longValue(), d.get("kind"), d.get("summary"), snippet(d.get("head"))));
                    }
                    hits.sort(java.util.Comparator.comparingLong(Hit::seq));
                    RolloutSummary r = summaries.get(id);
                    items.add(new RolloutHits(id, r == null ? null : r.environment(), r == null ? null : r.phase(), r == null ? null : r.reward(),
                            byRollout.get(id).size(), hits));
                }
                long matches = top.totalHits.value;
                return new Answer(q, filters, matches, top.scoreDocs.length >= MAX_HITS, ids.size(), page, size, pages, items,
                        index.progress(), (System.nanoTime() - t0) / 1e6);
            });
        } catch (IOException e) {
            throw new UncheckedIOException("the search index could not be read: " + e.getMessage(), e);
        }
    }

    Query query() {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        for (List<String> ph : phrases) {
            if (ph.size() == 1) b.add(new TermQuery(new Term("text", ph.get(0))), BooleanClause.Occur.MUST);
            else b.add(new PhraseQuery("text", ph.toArray(String[]::new)), BooleanClause.Occur.MUST);
        }
        filters.forEach((f, v) -> b.add(new TermQuery(new Term(f, v)), BooleanClause.Occur.FILTER));
        return b.build();
    }

    /** The part of the event's text around the first query word, one line, at most about 240 characters. */
    String snippet(String head) {
        if (head == null || head.isEmpty()) return "";
        String lower = head.toLowerCase(Locale.ROOT);
        int at = -1;
        for (List<String> ph : phrases) {
            int i = lower.indexOf(ph.get(0));
            if (i >= 0 && (at < 0 || i < at)) at = i;
        }
        int from = Math.max(0, at - 80);
        int to = Math.min(head.length(), Math.max(at, 0) + 160);
        return (from > 0 ? "…" : "") + head.substring(from, to).replaceAll("\\s+", " ").strip() + (to < head.length() ? "…" : "");
    }

    private static String one(Map<String, List<String>> p, String name) {
        List<String> v = p.get(name);
        if (v == null || v.isEmpty() || v.get(0).isBlank()) return null;
        if (v.size() > 1) throw ConsoleError.badRequest(name + ": given " + v.size() + " times, at most once");
        return v.get(0).strip();
    }

    private static int whole(Map<String, List<String>> p, String name, int dflt, int min, int max) {
        String s = one(p, name);
        if (s == null) return dflt;
        try {
            int v = Integer.parseInt(s);
            if (v < min || v > max) throw ConsoleError.badRequest(name + ": " + v + " is outside " + min + ".." + max);
            return v;
        } catch (NumberFormatException e) {
            throw ConsoleError.badRequest(name + ": not a whole number: '" + clip(s) + "'");
        }
    }

    static String clip(String s) { return s.length() > 40 ? s.substring(0, 40) + "…" : s; }
}
