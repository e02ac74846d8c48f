package dev.crucible.console.search;

import dev.crucible.console.store.FindingSummary;
import dev.crucible.console.store.RolloutSummary;
import dev.crucible.console.store.RunStore;
import dev.crucible.console.trace.SearchText;
import dev.crucible.trajectory.TraceText;
import dev.crucible.trajectory.TrajectoryReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.FSDirectory;

/**
 * The console's full-text index over every rollout's events (commands, outputs, diffs, findings): a Lucene index on
 * disk, so the store is never held in memory (the writer buffers at most {@link #RAM_MIB} MiB before it flushes).
 * {@link #sync()} indexes what appeared or changed since the last call: a rollout is re-indexed when its result.json or
 * its trajectory segments change (size or time), and dropped when its folder is gone. Kept in memory: one stamp per
 * rollout, not its events. One document per event: the rollout's id, environment, phase and detectors (filters), the
 * event's seq, kind and summary (stored), its text (indexed, and its first {@link #STORED_CHARS} characters stored for
 * the snippet). A kept index ({@code temporary} false: {@code crucible console} keeps one per RUNS folder in the user's cache,
 * never under RUNS) also holds
 * one stamp document per rollout, committed after each pass that changed something, so the next start re-indexes only
 * the rollouts that appeared or changed since (and drops those gone) instead of every event again. An index written
 * by a console with another {@link #FORMAT} is rebuilt.
 */
public final class SearchIndex implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SearchIndex.class.getName());
    static final int RAM_MIB = 16;
    static final int STORED_CHARS = 4096;
    /** Bumped when the documents' fields change: a kept index of another format is rebuilt, not misread. */
    static final String FORMAT = "1";

    private final RunStore store;
    private final Path dir;
    private final boolean deleteOnClose;
    private final FSDirectory directory;
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final Map<String, Long> stamps = new HashMap<>(); // id (the summary's own string) → a 64-bit hash of its files' sizes and times
    private volatile int indexed;
    private volatile int known;
    private volatile long events;
    private volatile boolean stopping;

    /**
     * An index in {@code dir}: when {@code temporary}, emptied first (rebuilt from the store) and deleted on close; else
     * kept: opened as the last start left it, with its stamps, unless it is of another {@link #FORMAT} (then rebuilt).
     * Throws when the folder cannot be written or another console holds it (Lucene's write lock).
     */
    public SearchIndex(RunStore store, Path dir, boolean temporary) throws IOException {
        this.store = store;
        this.dir = dir;
        this.deleteOnClose = temporary;
        Files.createDirectories(dir);
        this.directory = FSDirectory.open(dir);
        boolean keep = !temporary && FORMAT.equals(format(directory));
        IndexWriterConfig cfg = new IndexWriterConfig(new StandardAnalyzer())
                .setOpenMode(keep ? IndexWriterConfig.OpenMode.CREATE_OR_APPEND : IndexWriterConfig.OpenMode.CREATE).setRAMBufferSizeMB(RAM_MIB);
        try {
            this.writer = new IndexWriter(directory, cfg);
        } catch (IOException | RuntimeException e) {
            directory.close();
            throw e;
        }
        writer.setLiveCommitData(Map.of("format", FORMAT).entrySet());
        this.searchers = new SearcherManager(writer, null);
        if (keep) loadStamps();
    }

    /** The kept index's format, or null when there is none (or it cannot be read: then it is rebuilt). */
    private static String format(FSDirectory directory) {
        try {
            if (!org.apache.lucene.index.DirectoryReader.indexExists(directory)) return null;
            return org.apache.lucene.index.SegmentInfos.readLatestCommit(directory).getUserData().get("format");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The stamps the last start committed: the rollouts indexed then, and when each was last seen changed. */
    private void loadStamps() throws IOException {
        withSearcher(s -> {
            var hits = s.search(new org.apache.lucene.search.TermQuery(new Term("type", "stamp")), Math.max(1, s.getIndexReader().maxDoc()));
            for (var sd : hits.scoreDocs) {
                Document d = s.storedFields().document(sd.doc);
                stamps.put(d.get("rollout"), d.getField("stamp").numericValue().longValue());
                events += d.getField("events").numericValue().longValue();
            }
            return null;
        });
        indexed = stamps.size();
    }

    /** Indexes the rollouts that appeared or changed, drops the ones gone; returns how many were (re-)indexed. */
    public synchronized int sync() {
        RunStore.Index idx = store.index();
        known = idx.rollouts().size();
        Set<String> seen = new HashSet<>();
        int changed = 0;
        for (RolloutSummary r : idx.rollouts()) {
            if (stopping) return changed; // closing: a kept index goes on from here at the next start, a temporary one is gone
            seen.add(r.id());
            Path folder = store.root().resolve(r.id());
            long stamp = hash(stamp(folder));
            Long before = stamps.get(r.id());
            if (before != null && before == stamp) continue;
            try {
                writer.deleteDocuments(new Term("rollout", r.id())); // its events and its stamp
                long n = index(r, folder);
                events += n;
                Document sd = new Document();
                sd.add(new StringField("rollout", r.id(), Field.Store.YES));
                sd.add(new StringField("type", "stamp", Field.Store.NO));
                sd.add(new StoredField("stamp", stamp));
                sd.add(new StoredField("events", n));
                writer.addDocument(sd);
                stamps.put(r.id(), stamp);
                changed++;
                indexed = stamps.size();
                if (changed % 50 == 0) searchers.maybeRefresh(); // a search sees the first rollouts before the last is done
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.WARNING, "console search: rollout " + r.id() + " not indexed", e);
                stamps.put(r.id(), stamp); // not retried until it changes: a broken trajectory is named by the trace view
            }
        }
        for (String gone : new ArrayList<>(stamps.keySet())) {
            if (seen.contains(gone)) continue;
            try {
                writer.deleteDocuments(new Term("rollout", gone));
            } catch (IOException e) {
                LOG.log(Level.WARNING, "console search: rollout " + gone + " not dropped", e);
            }
            stamps.remove(gone);
            changed++;
        }
        indexed = stamps.size();
        try {
            if (changed > 0) {
                searchers.maybeRefresh();
                if (!deleteOnClose) writer.commit(); // kept: what this pass did survives a restart (or a crash)
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "console search: refresh", e);
        }
        return changed;
    }

    private long index(RolloutSummary r, Path folder) throws IOException {
        Path traj = folder.resolve("trajectory");
        if (!Files.isDirectory(traj.resolve("segments"), LinkOption.NOFOLLOW_LINKS)) return 0;
        Set<String> detectors = new HashSet<>();
        for (FindingSummary f : r.findings()) if (f.detector() != null) detectors.add(f.detector());
        long[] n = {0};
        IOException[] failed = {null};
        TrajectoryReader.read(traj, e -> {
            if (failed[0] != null) return;
            String text = SearchText.of(e, traj);
            Document d = new Document();
            d.add(new StringField("rollout", r.id(), Field.Store.YES));
            d.add(new StoredField("seq", e.seq()));
            d.add(new StringField("kind", e.kind(), Field.Store.YES));
            if (r.environment() != null) d.add(new StringField("environment", r.environment(), Field.Store.NO));
            if (r.phase() != null) d.add(new StringField("phase", r.phase(), Field.Store.NO));
            for (String det : detectors) d.add(new StringField("detector", det, Field.Store.NO));
            d.add(new TextField("text", SearchQuery.words(text), Field.Store.NO));
            d.add(new StoredField("summary", clip(TraceText.summary(e), 300)));
            d.add(new StoredField("head", clip(text, STORED_CHARS)));
            try {
                writer.addDocument(d);
                n[0]++;
            } catch (IOException ex) {
                failed[0] = ex;
            }
        }, problem -> { }); // a broken line is skipped here as in the trace view, which names it
        if (failed[0] != null) throw failed[0];
        return n[0];
    }

    /** Size and time of result.json and of each trajectory segment: what changes when a rollout is rewritten or grows. */
    static String stamp(Path folder) {
        StringBuilder b = new StringBuilder();
        attrs(folder.resolve("result.json"), b);
        Path seg = folder.resolve("trajectory").resolve("segments");
        if (Files.isDirectory(seg, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> s = Files.list(seg)) {
                s.sorted(Comparator.naturalOrder()).forEach(p -> attrs(p, b.append(p.getFileName()).append('=')));
            } catch (IOException e) {
                b.append("unlisted");
            }
        }
        return b.toString();
    }

    /** 64 bits: a collision would only leave one changed rollout as it was indexed, until it changes again. */
    static long hash(String s) {
        long h = 1125899906842597L;
        for (int i = 0; i < s.length(); i++) h = 31 * h + s.charAt(i);
        return h;
    }

    private static void attrs(Path p, StringBuilder b) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            b.append(a.size()).append('@').append(a.lastModifiedTime().toMillis()).append(';');
        } catch (IOException e) {
            b.append("-;");
        }
    }

    static String clip(String s, int max) { return s == null ? "" : s.length() <= max ? s : s.substring(0, max) + "…"; }

    /** Runs {@code q} against the newest view of the index (the searcher is released after). */
    <T> T withSearcher(SearcherBody<T> q) throws IOException {
        IndexSearcher s = searchers.acquire();
        try {
            return q.apply(s);
        } finally {
            searchers.release(s);
        }
    }

    interface SearcherBody<T> {
        T apply(IndexSearcher s) throws IOException;
    }

    RunStore store() { return store; }

    /** How far indexing is: rollouts indexed of those the store lists, and the events indexed. */
    public record Progress(int indexed, int rollouts, long events, boolean done) {}

    public Progress progress() {
        int i = indexed;
        int k = known;
        return new Progress(i, k, events, i >= k);
    }

    /** Makes a running {@link #sync()} return soon (before {@link #close()}, which waits for it): Lucene must not be interrupted mid-write. */
    public void stop() { stopping = true; }

    @Override
    public synchronized void close() {
        try {
            searchers.close();
            writer.close();
            directory.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "console search: close", e);
        }
        if (deleteOnClose) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            } catch (IOException e) {
                LOG.log(Level.FINE, "console search: " + dir + " not removed", e);
            }
        }
    }
}
