package dev.crucible.tracestore.store;

import dev.crucible.tracestore.common.S3Settings;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An S3-compatible object store ({@code traceStore.backend: s3}). Every key of a rollout starts
 * {@code <prefix>rollouts/<ns>/<name>/}: its segments as {@link S3Segments} keeps them (one object per append, runs,
 * one object per finished segment), its blobs at {@code blobs/sha256/ab/<hex>} as on the volume, and its registration
 * ({@code store-meta.json}) for a rebuilt index.
 */
public final class S3Storage implements TraceStorage {
    private static final Pattern BLOB = Pattern.compile("blobs/sha256/[0-9a-f]{2}/([0-9a-f]{64})");
    private static final Pattern ROLLOUT = Pattern.compile("rollouts/([^/]+)/([^/]+)/(.+)");

    private final S3Client s3;
    private final S3Settings cfg;
    private final S3Access access;
    private final S3Segments segments;

    public S3Storage(S3Settings cfg) {
        this.cfg = cfg;
        this.s3 = S3Access.client(cfg);
        this.access = new S3Access(s3, cfg);
        this.segments = new S3Segments(s3, cfg.bucket(), access);
        // A wrong endpoint, bucket or credential stops the store at start, naming the value, not at the first write.
        access.call("checking that bucket '" + cfg.bucket() + "' exists (traceStore.s3.bucket)", () -> s3.headBucket(b -> b.bucket(cfg.bucket())));
    }

    private String key(String ns, String name) {
        return cfg.prefix() + "rollouts/" + ns + "/" + name + "/";
    }

    @Override
    public long segmentSize(String ns, String name, int n) {
        return segments.size(key(ns, name), n);
    }

    @Override
    public byte[] readSegment(String ns, String name, int n, long offset, int len) throws IOException {
        return segments.read(key(ns, name), n, offset, len);
    }

    @Override
    public void appendSegment(String ns, String name, int n, long offset, byte[] chunk, int from, int len) {
        segments.append(key(ns, name), n, offset, java.util.Arrays.copyOfRange(chunk, from, from + len));
    }

    @Override
    public void copySegment(String ns, String name, int n, OutputStream out) throws IOException {
        segments.copy(key(ns, name), n, out);
    }

    private void copyObject(String key, OutputStream out) throws IOException {
        segments.copyObject(key, 0, out);
    }

    /** Waits for the queued runs and joins (tests and benchmarks look at the bucket after them). */
    public void awaitCopies() throws Exception {
        segments.awaitIdle();
    }

    private String blobKey(String ns, String name, String hex) {
        return key(ns, name) + "blobs/sha256/" + hex.substring(0, 2) + "/" + hex;
    }

    @Override
    public boolean hasBlob(String ns, String name, String hex) {
        try {
            access.call("looking up blob " + hex, () -> s3.headObject(b -> b.bucket(cfg.bucket()).key(blobKey(ns, name, hex))));
            return true;
        } catch (S3Access.NotStored e) {
            return false;
        }
    }

    @Override
    public void putBlob(String ns, String name, String hex, byte[] content) {
        access.call("writing blob " + hex + " of " + ns + "/" + name, () -> s3.putObject(b -> b.bucket(cfg.bucket())
                .key(blobKey(ns, name, hex)), RequestBody.fromBytes(content)));
    }

    @Override
    public List<TraceFiles.SegmentInfo> segments(String ns, String name) {
        String base = key(ns, name);
        return S3Segments.sizes(access.listAll(base + "segments/"), base).entrySet().stream()
                .map(e -> new TraceFiles.SegmentInfo(e.getKey(), e.getValue())).toList();
    }

    @Override
    public Local segmentFile(String ns, String name, int n) throws IOException {
        if (segments.seg(key(ns, name), n).size() == 0) return null;
        Path tmp = Files.createTempFile("segment-", ".jsonl");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            copySegment(ns, name, n, out);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return new Local(tmp, true);
    }

    @Override
    public Local blobFile(String ns, String name, String hex) throws IOException {
        Path tmp = Files.createTempFile("blob-", ".bin");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            copyObject(blobKey(ns, name, hex), out);
        } catch (S3Access.NotStored e) {
            Files.deleteIfExists(tmp);
            return null;
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return new Local(tmp, true);
    }

    /** A temporary copy in the recorder's layout: the ATIF export reads segments in order and blobs by hash. */
    @Override
    public Local folder(String ns, String name) throws IOException {
        Local dir = new Local(Files.createTempDirectory("trace-store-s3-"), true);
        try {
            Path segs = Files.createDirectories(dir.path().resolve("segments"));
            for (TraceFiles.SegmentInfo s : segments(ns, name)) {
                try (OutputStream out = Files.newOutputStream(segs.resolve(String.format("%06d.jsonl", s.number())))) {
                    copySegment(ns, name, s.number(), out);
                }
            }
            String base = key(ns, name);
            for (S3Object o : access.listAll(base + "blobs/")) {
                Matcher m = BLOB.matcher(o.key().substring(base.length()));
                if (!m.matches()) continue;
                Path target = Files.createDirectories(dir.path().resolve("blobs/sha256/" + m.group(1).substring(0, 2))).resolve(m.group(1));
                try (OutputStream out = Files.newOutputStream(target)) {
                    copyObject(o.key(), out);
                }
            }
            return dir;
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    /** Everything of the rollout; a run or join of it in the background waits, or waits for this. */
    @Override
    public long delete(String ns, String name) {
        String base = key(ns, name);
        synchronized (segments.lock(base)) {
            long bytes = 0;
            List<String> keys = new ArrayList<>();
            for (S3Object o : access.listAll(base)) {
                keys.add(o.key());
                bytes += o.size();
            }
            segments.deleteKeys(keys);
            segments.forget(base);
            return bytes;
        }
    }

    @Override
    public void putMeta(String ns, String name, byte[] json) {
        access.call("writing the registration of " + ns + "/" + name, () -> s3.putObject(b -> b.bucket(cfg.bucket())
                .key(key(ns, name) + VolumeStorage.META).contentType("application/json"), RequestBody.fromBytes(json)));
    }

    @Override
    public List<Stored> list() throws IOException {
        String root = cfg.prefix() + "rollouts/";
        Map<String, long[]> found = new LinkedHashMap<>(); // ns/name -> bytes, last write (ms), has meta
        for (S3Object o : access.listAll(root)) {
            Matcher m = ROLLOUT.matcher(o.key().substring(cfg.prefix().length()));
            if (!m.matches()) continue;
            long[] f = found.computeIfAbsent(m.group(1) + "/" + m.group(2), k -> new long[3]);
            f[1] = Math.max(f[1], o.lastModified().toEpochMilli());
            if (m.group(3).equals(VolumeStorage.META)) f[2] = 1;
            else f[0] += o.size();
        }
        List<Stored> out = new ArrayList<>();
        for (var e : found.entrySet()) {
            String[] nn = e.getKey().split("/", 2);
            byte[] meta = null;
            if (e.getValue()[2] == 1) {
                var bytes = new java.io.ByteArrayOutputStream();
                copyObject(key(nn[0], nn[1]) + VolumeStorage.META, bytes);
                meta = bytes.toByteArray();
            }
            out.add(new Stored(nn[0], nn[1], meta, e.getValue()[0], Instant.ofEpochMilli(e.getValue()[1])));
        }
        return out;
    }

    @Override
    public String describe() {
        return "S3-compatible bucket " + cfg.where();
    }

    @Override
    public void close() {
        segments.close();
        s3.close();
    }
}
