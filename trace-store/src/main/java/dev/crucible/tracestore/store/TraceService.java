package dev.crucible.tracestore.store;

import dev.crucible.tracestore.common.StoreException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.tracestore.common.StoreSettings;
import dev.crucible.tracestore.index.RolloutFilter;
import dev.crucible.tracestore.index.RolloutIndex;
import dev.crucible.tracestore.index.RolloutRow;
import dev.crucible.trajectory.AtifExport;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.OutputStream;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the HTTP layer calls: writes go through one rollout's lock, count against the rollout's and the store's size
 * limits and update the index; reads check nothing but existence (the caller checked permission first). Retention
 * (time and size) removes whole rollouts, and only this class deletes.
 */
public final class TraceService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TraceService.class);
    private static final String ROLLOUT_API = "crucible.dev/v1alpha1";

    private final StoreSettings settings;
    private final TraceFiles files;
    private final RolloutIndex index;
    private final KubernetesClient kube;
    private final Clock clock;
    private final ReentrantLock[] locks = new ReentrantLock[256];
    private long used; // bytes of every stored rollout; guarded by this

    public TraceService(StoreSettings settings, KubernetesClient kube, Clock clock) throws IOException, SQLException {
        this.settings = settings;
        TraceStorage storage = settings.s3() == null ? new VolumeStorage(settings.dir()) : new S3Storage(settings.s3());
        this.files = new TraceFiles(storage);
        this.index = new RolloutIndex(settings.dir());
        // The index stays on the store's own disk; one that is new or lost (an emptyDir, a new volume) is made again
        // from the registrations and segments the backend holds.
        if (index.isEmpty()) {
            int n = IndexRebuild.rebuild(storage, index);
            if (n > 0) LOG.info("index rebuilt from {}: {} rollouts", storage.describe(), n);
        }
        this.kube = kube;
        this.clock = clock;
        for (int i = 0; i < locks.length; i++) locks[i] = new ReentrantLock();
        this.used = index.totalBytes();
    }

    public RolloutIndex index() { return index; }

    public TraceFiles files() { return files; }

    private ReentrantLock lock(String ns, String name) {
        return locks[Math.floorMod((ns + "/" + name).hashCode(), locks.length)];
    }

    /** Appends a chunk of segment {@code n} at {@code offset} (idempotent for a retried range). */
    public TraceFiles.Appended appendSegment(String ns, String name, int n, long offset, byte[] chunk) throws IOException, SQLException {
        files.checkSegment(ns, name, n); // names checked before anything else
        if (chunk.length > settings.maxChunkBytes()) throw chunkTooLarge(chunk.length);
        List<JsonNode> events = TraceFiles.parseEvents(n, chunk);
        ReentrantLock l = lock(ns, name);
        l.lock();
        try {
            register(ns, name);
            long add = files.newBytes(ns, name, n, offset, chunk);
            if (add == 0) return files.append(ns, name, n, offset, chunk);
            long after = offset + chunk.length;
            if (after > settings.maxSegmentBytes()) {
                throw StoreException.tooLarge("segment " + n + " of " + ns + "/" + name + " would hold " + after
                        + " bytes, over the store's maxSegmentBytes=" + settings.maxSegmentBytes());
            }
            checkRollout(ns, name, add);
            reserve(ns, name, add);
            TraceFiles.Appended a;
            try {
                a = files.append(ns, name, n, offset, chunk);
            } catch (IOException e) {
                release(add);
                throw diskError(e);
            } catch (RuntimeException e) { // the object store refused or could not be reached: nothing counted
                release(add);
                throw e;
            }
            // Only the new lines count: a retried range's events are indexed already.
            List<JsonNode> fresh = add == chunk.length ? events : TraceFiles.parseEvents(n, tail(chunk, add));
            index.applied(ns, name, a.added(), fresh, clock.instant());
            return a;
        } finally {
            l.unlock();
        }
    }

    private static byte[] tail(byte[] chunk, long add) {
        byte[] t = new byte[(int) add];
        System.arraycopy(chunk, chunk.length - t.length, t, 0, t.length);
        return t;
    }

    /** Stores a blob of the rollout (idempotent by hash); the bytes newly stored. */
    public long putBlob(String ns, String name, String hex, byte[] content) throws IOException, SQLException {
        files.checkBlob(ns, name, hex);
        if (content.length > settings.maxChunkBytes()) throw chunkTooLarge(content.length);
        ReentrantLock l = lock(ns, name);
        l.lock();
        try {
            register(ns, name);
            if (files.storage().hasBlob(ns, name, hex)) return 0;
            checkRollout(ns, name, content.length);
            reserve(ns, name, content.length);
            long added;
            try {
                added = files.putBlob(ns, name, hex, content);
            } catch (IOException e) {
                release(content.length);
                throw diskError(e);
            } catch (StoreException e) {
                release(content.length);
                throw e;
            }
            if (added < content.length) release(content.length - added);
            index.applied(ns, name, added, List.of(), clock.instant());
            return added;
        } finally {
            l.unlock();
        }
    }

    /** The first write of a rollout: it must be a Rollout the API server has; its environment and labels go to the index. */
    private void register(String ns, String name) throws SQLException, IOException {
        if (index.contains(ns, name)) return;
        GenericKubernetesResource r;
        try {
            r = kube.genericKubernetesResources(ROLLOUT_API, "Rollout").inNamespace(ns).withName(name).get();
        } catch (RuntimeException e) {
            throw new StoreException(503, "the API server could not be asked for Rollout " + ns + "/" + name + ": " + e.getMessage());
        }
        if (r == null) {
            throw StoreException.notFound("unknown rollout: there is no Rollout " + ns + "/" + name
                    + " in the API server (the store takes trajectories of existing Rollouts only)");
        }
        Object env = r.get("spec", "environmentRef", "name");
        Map<String, String> labels = r.getMetadata().getLabels() == null ? Map.of() : r.getMetadata().getLabels();
        Instant created = r.getMetadata().getCreationTimestamp() == null ? clock.instant()
                : Instant.parse(r.getMetadata().getCreationTimestamp());
        // Kept beside the trajectory first (a rebuilt index needs it once the Rollout is gone); nothing is indexed
        // when that fails.
        files.storage().putMeta(ns, name, IndexRebuild.meta(r.getMetadata().getUid(), env == null ? null : env.toString(), labels, created));
        index.register(ns, name, r.getMetadata().getUid(), env == null ? null : env.toString(), labels, created);
    }

    private void checkRollout(String ns, String name, long add) throws SQLException {
        List<RolloutRow> row = index.query(RolloutFilter.one(ns, name));
        long have = row.isEmpty() ? 0 : row.get(0).bytes();
        if (have + add > settings.maxRolloutBytes()) {
            throw StoreException.tooLarge("rollout " + ns + "/" + name + " would hold " + (have + add)
                    + " bytes, over the store's maxRolloutBytes=" + settings.maxRolloutBytes());
        }
    }

    /** Counts {@code add} bytes against the store, first removing the oldest ended rollouts; 507 when they do not fit. */
    private synchronized void reserve(String ns, String name, long add) throws IOException, SQLException {
        long over = used + add - settings.retentionMaxBytes();
        // Nothing is removed for a write that would be refused anyway.
        if (over > 0 && index.endedBytesExcept(ns, name) < over) throw full(add);
        while (used + add > settings.retentionMaxBytes()) {
            boolean removed = false;
            for (RolloutIndex.Key k : index.endedOldestFirst(64)) {
                if (k.namespace().equals(ns) && k.name().equals(name)) continue;
                if (remove(k, "size retention: the store holds " + used + " of retentionMaxBytes=" + settings.retentionMaxBytes())) {
                    removed = true;
                    break;
                }
            }
            if (!removed) throw full(add);
        }
        used += add;
    }

    private StoreException full(long add) {
        return StoreException.full("the trace store is full: " + used + " bytes stored + " + add
                + " would pass retentionMaxBytes=" + settings.retentionMaxBytes()
                + ", and the ended rollouts that retention may remove do not free enough");
    }

    private synchronized void release(long bytes) {
        used -= bytes;
    }

    public synchronized long used() {
        return used;
    }

    /** Removes a rollout whose lock is free now (a busy one is skipped); true when it went. */
    private boolean remove(RolloutIndex.Key k, String why) throws IOException, SQLException {
        ReentrantLock l = lock(k.namespace(), k.name());
        try {
            if (!l.tryLock(100, TimeUnit.MILLISECONDS)) return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        try {
            files.delete(k.namespace(), k.name());
            index.delete(k.namespace(), k.name());
            synchronized (this) {
                used -= k.bytes();
            }
            LOG.info("removed the trajectory of {}/{} ({} bytes): {}", k.namespace(), k.name(), k.bytes(), why);
            return true;
        } finally {
            l.unlock();
        }
    }

    /** Time retention: removes each rollout last written before now − retentionMaxAge; how many went. */
    public int sweep() throws IOException, SQLException {
        int n = 0;
        Instant cutoff = clock.instant().minus(settings.retentionMaxAge());
        for (RolloutIndex.Key k : index.lastWrittenBefore(cutoff)) {
            if (remove(k, "time retention: last written before " + cutoff)) n++;
        }
        return n;
    }

    /** 404 unless the store holds the rollout (whether or not its Rollout still exists). */
    public void requireStored(String ns, String name) throws SQLException {
        files.check(ns, name);
        if (!index.contains(ns, name)) {
            throw StoreException.notFound("unknown rollout: the store holds no trajectory of " + ns + "/" + name);
        }
    }

    public RolloutRow row(String ns, String name) throws SQLException {
        return index.query(RolloutFilter.one(ns, name)).stream().findFirst()
                .orElseThrow(() -> StoreException.notFound("unknown rollout: the store holds no trajectory of " + ns + "/" + name));
    }

    public List<RolloutRow> query(RolloutFilter f) throws SQLException {
        return index.query(f);
    }

    /** Streams the ATIF document of a stored rollout; the problems met reading its segments. */
    public List<String> atif(String ns, String name, OutputStream out) throws IOException {
        files.check(ns, name);
        try (TraceStorage.Local dir = files.storage().folder(ns, name)) {
            return AtifExport.export(dir.path(), ns + "/" + name, new AtifExport.AgentInfo("crucible", "trace-store", null), out);
        }
    }

    private StoreException chunkTooLarge(long bytes) {
        return StoreException.tooLarge("the body holds " + bytes + " bytes, over the store's maxChunkBytes="
                + settings.maxChunkBytes() + " (send a segment in smaller appends)");
    }

    private static RuntimeException diskError(IOException e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("No space left") || m.contains("Disk quota")) {
            return StoreException.full("the store's volume is full: " + m);
        }
        return new StoreException(500, "the store could not write: " + e);
    }

    @Override
    public void close() throws SQLException {
        index.close();
        files.storage().close();
    }
}
