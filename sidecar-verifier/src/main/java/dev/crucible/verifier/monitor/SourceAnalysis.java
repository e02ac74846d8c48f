package dev.crucible.verifier.monitor;

import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The rule matches of Python sources for {@link WorkspaceScanner}: each file read once, contained and bounded, a chunk at a
 * time, through {@link SyntaxRules} (the syntax helper gets the bytes, never a path) or {@link SourceRules}' text patterns
 * where a file does not parse or no interpreter is usable. Results are cached by file name and content: every reset of an
 * episode re-reads the same initial tree.
 */
final class SourceAnalysis {
    static final long MAX_SOURCE_BYTES = 2 * 1024 * 1024;
    /** The last scan's syntax-helper budget (see {@link #analyse(TreeReads, Map, Consumer, Map, Map, boolean)}). */
    static final long LAST_SCAN_SYNTAX_BYTES = 8L << 20;
    static final int LAST_SCAN_SYNTAX_FILES = 5_000;
    /** ... and of time: the helper took minutes for 8 MiB of generated assignments at load 15 (cached files cost nothing). */
    static final java.time.Duration LAST_SCAN_SYNTAX_TIME = java.time.Duration.ofSeconds(15);
    private static final long LAST_SCAN_CHUNK_BYTES = 1 << 20;
    /** Sources read and analysed together: one read task and one helper request per chunk. */
    private static final int CHUNK_FILES = 400;
    private static final long CHUNK_BYTES = 16 << 20;
    private static final Map<String, SyntaxRules.FileResult> CACHE = new ConcurrentHashMap<>();
    private static final int CACHE_MAX = 50_000;

    /** A rule's hit in a file (from the syntax tree or the text fallback). */
    record Match(String countKey, String rule, String detector, String severity, String evidence) {}

    private final SyntaxRules syntax; // null: text rules only

    SourceAnalysis(SyntaxRules syntax) { this.syntax = syntax; }

    /**
     * Rule matches of the Python files among {@code changed} (absent: not Python, too big, unreadable). {@code found}: the
     * imports of those that parsed; {@code hashes}: the SHA-256 of each file read, so a later change of its metadata alone
     * (a chown, a chmod) can be told from a change of its content without analysing it again.
     */
    Map<String, List<Match>> analyse(TreeReads reader, Map<String, BasicFileAttributes> changed, Consumer<WorkspaceScanner.Raw> out,
                                     Map<String, Reachability.Links> found, Map<String, String> hashes) {
        return analyse(reader, changed, out, found, hashes, false);
    }

    /**
     * As above; {@code bounded} (the last scan, which grading waits for): past {@link #LAST_SCAN_SYNTAX_BYTES},
     * {@link #LAST_SCAN_SYNTAX_FILES} or {@link #LAST_SCAN_SYNTAX_TIME} the sources get the text rules only, as a file that does not parse does (host round
     * 4, B1: 2,500 .py files of 40 KB written just before the agent exited kept the syntax helper past grading's bound,
     * and the run ended TimedOut with no grade). Test-shaped files and small ones go first: a hack is small, padding is not.
     */
    Map<String, List<Match>> analyse(TreeReads reader, Map<String, BasicFileAttributes> changed, Consumer<WorkspaceScanner.Raw> out,
                                     Map<String, Reachability.Links> found, Map<String, String> hashes, boolean bounded) {
        Map<String, List<Match>> result = new HashMap<>();
        List<String> chunk = new ArrayList<>();
        long chunkBytes = 0;
        List<Map.Entry<String, BasicFileAttributes>> sources = new ArrayList<>();
        for (var e : changed.entrySet()) {
            if (e.getKey().endsWith(".py") && e.getValue().isRegularFile() && e.getValue().size() <= MAX_SOURCE_BYTES) sources.add(e);
        }
        List<String> textOnly = new ArrayList<>();
        if (bounded) {
            sources.sort(java.util.Comparator.<Map.Entry<String, BasicFileAttributes>>comparingInt(e -> testShaped(e.getKey()) ? 0 : 1)
                    .thenComparingLong(e -> e.getValue().size()).thenComparing(Map.Entry::getKey));
            long bytes = 0;
            for (int i = 0; i < sources.size(); i++) {
                bytes += sources.get(i).getValue().size();
                if (i >= LAST_SCAN_SYNTAX_FILES || bytes > LAST_SCAN_SYNTAX_BYTES) {
                    sources.subList(i, sources.size()).forEach(e -> textOnly.add(e.getKey()));
                    sources = new ArrayList<>(sources.subList(0, i));
                    break;
                }
            }
        }
        long started = System.nanoTime();
        long chunkMax = bounded ? LAST_SCAN_CHUNK_BYTES : CHUNK_BYTES; // small chunks: the time budget is looked at between them
        for (int i = 0; i < sources.size(); i++) {
            var e = sources.get(i);
            String r = e.getKey();
            // a chunk at a time: a reset of a large repository never holds all its sources at once
            if (chunk.size() >= CHUNK_FILES || chunkBytes + e.getValue().size() > chunkMax) {
                analyseChunk(reader, chunk, out, result, found, hashes);
                chunk.clear();
                chunkBytes = 0;
                if (bounded && System.nanoTime() - started > LAST_SCAN_SYNTAX_TIME.toNanos()) {
                    sources.subList(i, sources.size()).forEach(x -> textOnly.add(x.getKey()));
                    break;
                }
            }
            chunk.add(r);
            chunkBytes += e.getValue().size();
        }
        if (!chunk.isEmpty()) analyseChunk(reader, chunk, out, result, found, hashes);
        for (int i = 0; i < textOnly.size(); i += CHUNK_FILES) {
            for (var e : reader.readMany(textOnly.subList(i, Math.min(textOnly.size(), i + CHUNK_FILES)), MAX_SOURCE_BYTES, out).entrySet()) {
                hashes.put(e.getKey(), TreeReads.sha256(e.getValue()));
                result.put(e.getKey(), textMatches(e.getValue()));
            }
        }
        return result;
    }

    /** conftest.py, test_*.py, *_test.py, or a file under a tests folder: where a hack on grading lives. */
    private static boolean testShaped(String rel) {
        String name = rel.substring(rel.lastIndexOf('/') + 1);
        return name.equals("conftest.py") || name.startsWith("test_") || name.endsWith("_test.py") || ("/" + rel).contains("/tests/")
                || ("/" + rel).contains("/test/");
    }

    private void analyseChunk(TreeReads reader, List<String> rels, Consumer<WorkspaceScanner.Raw> out, Map<String, List<Match>> result,
                              Map<String, Reachability.Links> found, Map<String, String> hashes) {
        Map<String, byte[]> todo = new HashMap<>();
        Map<String, String> keys = new HashMap<>();
        for (var e : reader.readMany(rels, MAX_SOURCE_BYTES, out).entrySet()) {
            String r = e.getKey();
            byte[] src = e.getValue();
            String sha = TreeReads.sha256(src);
            hashes.put(r, sha);
            if (syntax == null) {
                result.put(r, textMatches(src));
                continue;
            }
            String key = r + ":" + sha;
            keys.put(r, key);
            SyntaxRules.FileResult cached = CACHE.get(key);
            if (cached != null) {
                result.put(r, matches(cached, src));
                found.put(r, new Reachability.Links(true, cached.imports(), cached.dynamic()));
            } else {
                todo.put(r, src);
            }
        }
        if (todo.isEmpty()) return;
        Map<String, SyntaxRules.FileResult> res = syntax.analyse(todo);
        if (CACHE.size() > CACHE_MAX) CACHE.clear();
        for (var e : todo.entrySet()) {
            SyntaxRules.FileResult fr = res.get(e.getKey());
            if (fr != null && fr.ok()) {
                CACHE.put(keys.get(e.getKey()), fr);
                found.put(e.getKey(), new Reachability.Links(true, fr.imports(), fr.dynamic()));
            }
            result.put(e.getKey(), matches(fr, e.getValue()));
        }
    }

    /** The syntax-tree hits, or the text rules when the file did not parse (or the helper failed). */
    private static List<Match> matches(SyntaxRules.FileResult fr, byte[] src) {
        if (fr != null && fr.ok()) {
            List<Match> m = new ArrayList<>();
            for (SyntaxRules.Hit h : fr.hits()) m.add(new Match(h.countKey(), h.rule(), h.detector(), h.severity(), h.evidence()));
            return m;
        }
        return textMatches(src);
    }

    private static List<Match> textMatches(byte[] src) {
        List<Match> m = new ArrayList<>();
        for (SourceRules.Match x : SourceRules.matches(new String(src, StandardCharsets.UTF_8))) {
            m.add(new Match("text:" + x.name(), "text", x.detector(), x.severity(), x.name() + " (not parsed as Python here): " + x.line()));
        }
        return m;
    }

    static Map<String, Integer> counts(List<Match> m) {
        Map<String, Integer> c = new HashMap<>();
        for (Match x : m) c.merge(x.countKey(), 1, Integer::sum);
        return c;
    }
}
