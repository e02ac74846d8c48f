package dev.crucible.tracestore.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Segments in a bucket. S3 has no append, so a segment is kept as its appends: each one object
 * {@code segments/000001.parts/<offset, 16 digits>}, written once, never rewritten: an append is one PUT. Off the
 * request path (one background thread), every {@link #RUN_PARTS} parts of the open segment are copied into one run
 * ({@code …parts/<offset>.<end>}, a new key) and deleted, so a live segment reads in a few GETs; and when segment
 * {@code n+1} begins, segment {@code n} is finished (the recorder writes in order) and becomes one object
 * {@code segments/000001.jsonl}. A segment reads as the objects that cover it from byte 0 (the largest where two start
 * at one offset), so a failed copy, or a crash between a copy and its delete, leaves pieces that read the same bytes,
 * and a reader that loses a piece to a copy lists again and goes on from where it was.
 */
final class S3Segments implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(S3Segments.class);
    static final int RUN_PARTS = 32;
    private static final Pattern PART = Pattern.compile("segments/(\\d{6})\\.parts/(\\d{16})(\\.\\d{16})?");
    private static final Pattern WHOLE = Pattern.compile("segments/(\\d{6})\\.jsonl");
    private static final int KEPT = 10_000;

    private final S3Client s3;
    private final String bucket;
    private final S3Access access;
    /** {size, parts since the last run} of each segment after its last append: the store is the bucket's one writer. */
    private final Map<String, long[]> known = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> e) {
            return size() > KEPT;
        }
    };
    private final ExecutorService compactor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "trace-store-s3-compactor");
        t.setDaemon(true);
        return t;
    });
    /** A rollout's copies and its deletion do not overlap (a copy must not leave objects of a removed rollout). */
    private final Object[] locks = new Object[64];

    S3Segments(S3Client s3, String bucket, S3Access access) {
        this.s3 = s3;
        this.bucket = bucket;
        this.access = access;
        for (int i = 0; i < locks.length; i++) locks[i] = new Object();
    }

    Object lock(String base) {
        return locks[Math.floorMod(base.hashCode(), locks.length)];
    }

    /** One object of a segment: its bytes {@code [offset, offset+size)}; {@code part}: one append's. */
    record Piece(String key, long offset, long size, boolean part) {}

    /** Segment {@code n} as stored: the pieces that cover it from byte 0, in order, and the objects no longer needed. */
    record Seg(List<Piece> pieces, List<String> stale) {
        long size() {
            return pieces.isEmpty() ? 0 : pieces.get(pieces.size() - 1).offset() + pieces.get(pieces.size() - 1).size();
        }

        /** The parts after the last run or joined object: what the next run is made of. */
        List<Piece> tailParts() {
            int i = pieces.size();
            while (i > 0 && pieces.get(i - 1).part()) i--;
            return pieces.subList(i, pieces.size());
        }
    }

    /** {@code base}: the rollout's key prefix, ending in {@code /}. */
    Seg seg(String base, int n) {
        List<Piece> all = new ArrayList<>();
        for (S3Object o : access.listAll(base + String.format("segments/%06d", n))) {
            String rest = o.key().substring(base.length());
            Matcher p = PART.matcher(rest);
            if (p.matches()) all.add(new Piece(o.key(), Long.parseLong(p.group(2)), o.size(), p.group(3) == null));
            else if (WHOLE.matcher(rest).matches()) all.add(new Piece(o.key(), 0, o.size(), false));
        }
        all.sort(Comparator.comparingLong(Piece::offset).thenComparing(Piece::size, Comparator.reverseOrder()));
        List<Piece> cover = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        long pos = 0;
        for (Piece p : all) {
            if (p.offset() == pos && p.size() > 0) {
                cover.add(p);
                pos += p.size();
            } else {
                stale.add(p.key());
            }
        }
        return new Seg(cover, stale);
    }

    /** Each segment's number and size, from one listing. */
    static Map<Integer, Long> sizes(List<S3Object> objects, String base) {
        Map<Integer, Long> out = new java.util.TreeMap<>();
        for (S3Object o : objects) {
            String rest = o.key().substring(base.length());
            Matcher w = WHOLE.matcher(rest);
            Matcher p = PART.matcher(rest);
            if (w.matches()) out.merge(Integer.parseInt(w.group(1)), o.size(), Math::max);
            else if (p.matches()) out.merge(Integer.parseInt(p.group(1)), Long.parseLong(p.group(2)) + o.size(), Math::max);
        }
        return out;
    }

    long size(String base, int n) {
        synchronized (known) {
            long[] k = known.get(base + n);
            if (k != null) return k[0];
        }
        Seg seg = seg(base, n);
        if (seg.size() > 0) {
            synchronized (known) {
                known.putIfAbsent(base + n, new long[] {seg.size(), seg.tailParts().size()});
            }
        }
        return seg.size();
    }

    /** One PUT; a run or a join is queued for the background thread. */
    void append(String base, int n, long offset, byte[] body) {
        access.call("writing segment " + n + " at " + base, () -> s3.putObject(b -> b.bucket(bucket)
                .key(base + String.format("segments/%06d.parts/%016d", n, offset)).contentType("application/x-ndjson"),
                RequestBody.fromBytes(body)));
        long tail;
        synchronized (known) {
            long[] k = known.get(base + n);
            if (k != null) {
                k[0] = offset + body.length;
                tail = ++k[1];
            } else {
                tail = -1;
            }
        }
        if (tail < 0) { // not cached (the segment's first append, or a restart): from the listing
            tail = seg(base, n).tailParts().size();
            synchronized (known) {
                known.put(base + n, new long[] {offset + body.length, tail});
            }
        }
        if (tail > 0 && tail % RUN_PARTS == 0) compactor.execute(() -> run(base, n));
        if (offset == 0 && n > 1) compactor.execute(() -> join(base, n - 1));
    }

    /** The open segment's trailing parts into one run. */
    private void run(String base, int n) {
        synchronized (lock(base)) {
            try {
                Seg seg = seg(base, n);
                List<Piece> tail = seg.tailParts();
                if (tail.size() >= 2) {
                    long start = tail.get(0).offset();
                    long end = start;
                    for (Piece p : tail) end += p.size();
                    write(base + String.format("segments/%06d.parts/%016d.%016d", n, start, end), tail);
                    deleteKeys(Stream.concat(tail.stream().map(Piece::key), seg.stale().stream()).toList());
                    synchronized (known) {
                        long[] k = known.get(base + n);
                        if (k != null) k[1] = Math.max(0, k[1] - tail.size());
                    }
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("segment {} at {}: its last parts stay apart (they read back the same): {}", n, base, e.toString());
            }
        }
    }

    /** Segment {@code n}, finished, into one object; then its parts and runs go. */
    private void join(String base, int n) {
        synchronized (lock(base)) {
            try {
                Seg seg = seg(base, n);
                List<Piece> pieces = seg.pieces();
                String whole = base + String.format("segments/%06d.jsonl", n);
                if (!pieces.isEmpty() && !(pieces.size() == 1 && pieces.get(0).key().equals(whole))) {
                    write(whole, pieces);
                    deleteKeys(pieces.stream().map(Piece::key).filter(k -> !k.equals(whole)).toList());
                }
                deleteKeys(seg.stale().stream().filter(k -> !k.equals(whole)).toList());
            } catch (IOException | RuntimeException e) {
                LOG.warn("segment {} at {} stays in parts (it reads back the same): {}", n, base, e.toString());
            }
        }
    }

    /** The pieces' bytes, in order, as one new object (through a temporary file: never a segment in the heap). */
    private void write(String key, List<Piece> pieces) throws IOException {
        Path tmp = Files.createTempFile("segment-", ".jsonl");
        try {
            try (OutputStream out = Files.newOutputStream(tmp)) {
                for (Piece p : pieces) copyObject(p.key(), 0, out);
            }
            access.call("copying " + pieces.size() + " pieces into " + key, () -> s3.putObject(b -> b.bucket(bucket).key(key)
                    .contentType("application/x-ndjson"), RequestBody.fromFile(tmp)));
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** {@code len} bytes from {@code offset} (ranged GETs); a piece lost to a copy meanwhile: listed again. */
    byte[] read(String base, int n, long offset, int len) throws IOException {
        byte[] out = new byte[len];
        for (int attempt = 1; ; attempt++) {
            try {
                for (Piece p : seg(base, n).pieces()) {
                    long start = Math.max(offset, p.offset());
                    long end = Math.min(offset + len, p.offset() + p.size());
                    if (start >= end) continue;
                    long from = start - p.offset();
                    try (InputStream in = access.call("reading " + p.key(), () -> s3.getObject(b -> b.bucket(bucket).key(p.key())
                            .range("bytes=" + from + "-" + (from + end - start - 1))))) {
                        in.readNBytes(out, (int) (start - offset), (int) (end - start));
                    }
                }
                return out;
            } catch (S3Access.NotStored e) {
                if (attempt == 3) throw e;
            }
        }
    }

    /** The whole segment to {@code out}, piece by piece; a piece lost to a copy meanwhile: listed again, from where it was. */
    void copy(String base, int n, OutputStream out) throws IOException {
        long pos = 0;
        for (int attempt = 1; ; attempt++) {
            try {
                for (Piece p : seg(base, n).pieces()) {
                    if (p.offset() + p.size() <= pos) continue;
                    copyObject(p.key(), pos - p.offset(), out);
                    pos = p.offset() + p.size();
                }
                return;
            } catch (S3Access.NotStored e) {
                if (attempt == 3) throw e;
            }
        }
    }

    void copyObject(String key, long from, OutputStream out) throws IOException {
        try (InputStream in = access.call("reading " + key, () -> s3.getObject(b -> {
            b.bucket(bucket).key(key);
            if (from > 0) b.range("bytes=" + from + "-");
        }))) {
            in.transferTo(out);
        }
    }

    void deleteKeys(List<String> keys) {
        for (int i = 0; i < keys.size(); i += 1000) {
            List<software.amazon.awssdk.services.s3.model.ObjectIdentifier> ids = keys.subList(i, Math.min(keys.size(), i + 1000))
                    .stream().map(k -> software.amazon.awssdk.services.s3.model.ObjectIdentifier.builder().key(k).build()).toList();
            var r = access.call("deleting " + ids.size() + " objects", () -> s3.deleteObjects(b -> b.bucket(bucket)
                    .delete(d -> d.objects(ids).quiet(true))));
            if (r.hasErrors() && !r.errors().isEmpty()) {
                throw new dev.crucible.tracestore.common.StoreException(503, "the object store did not delete "
                        + r.errors().get(0).key() + ": " + r.errors().get(0).code() + " " + r.errors().get(0).message());
            }
        }
    }

    /** Forgets a removed rollout's sizes. */
    void forget(String base) {
        synchronized (known) {
            known.keySet().removeIf(k -> k.startsWith(base));
        }
    }

    /** Waits until every queued run and join is done (tests, benchmarks, shutdown). */
    void awaitIdle() throws Exception {
        compactor.submit(() -> { }).get(5, TimeUnit.MINUTES);
    }

    @Override
    public void close() {
        compactor.shutdown();
        try {
            if (!compactor.awaitTermination(60, TimeUnit.SECONDS)) LOG.warn("S3 copies still running at shutdown: their pieces stay");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
