package dev.crucible.tracestore.store;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * Where a rollout's segments and blobs lie: the volume ({@link VolumeStorage}, the default) or an S3-compatible
 * object store ({@link S3Storage}). Names, hashes and segment numbers reach it already checked ({@link TraceFiles});
 * the rules of an append (order, no gap, a retry equal to what is stored) are {@link TraceFiles}'s too, built on
 * {@link #segmentSize} and {@link #readSegment}. Callers hold the rollout's lock ({@code TraceService}).
 */
public interface TraceStorage extends AutoCloseable {

    /** Bytes stored of segment {@code n}; 0 when it is not there. */
    long segmentSize(String ns, String name, int n) throws IOException;

    /** {@code len} stored bytes of segment {@code n} from {@code offset} (within what {@link #segmentSize} says). */
    byte[] readSegment(String ns, String name, int n, long offset, int len) throws IOException;

    /**
     * Stores {@code chunk[from, from+len)} as segment {@code n}'s bytes from {@code offset}, its current size; durable
     * (synced, or acknowledged by the object store) before it returns.
     */
    void appendSegment(String ns, String name, int n, long offset, byte[] chunk, int from, int len) throws IOException;

    boolean hasBlob(String ns, String name, String hex) throws IOException;

    /** Stores a checked blob under its hash, whole or not at all. */
    void putBlob(String ns, String name, String hex, byte[] content) throws IOException;

    /** The rollout's segments, in order, with their sizes. */
    List<TraceFiles.SegmentInfo> segments(String ns, String name) throws IOException;

    /** Segment {@code n} as a local file to send; null when it is not stored. */
    Local segmentFile(String ns, String name, int n) throws IOException;

    /** A blob as a local file to send; null when it is not stored. */
    Local blobFile(String ns, String name, String hex) throws IOException;

    /** The rollout as a folder in the recorder's layout, for {@code TrajectoryReader} and the ATIF export. */
    Local folder(String ns, String name) throws IOException;

    /** Removes everything of the rollout; the bytes it held. */
    long delete(String ns, String name) throws IOException;

    /** Keeps the rollout's index registration (its Rollout's uid, environment, labels) beside its trajectory. */
    void putMeta(String ns, String name, byte[] json) throws IOException;

    /** Every stored rollout with its registration, its bytes and its last write: what a lost index is rebuilt from. */
    List<Stored> list() throws IOException;

    /** Copies segment {@code n} to {@code out}. */
    void copySegment(String ns, String name, int n, OutputStream out) throws IOException;

    /** A short description for the log: which volume or which bucket. */
    String describe();

    @Override
    default void close() {}

    /** A stored rollout, as {@link #list} finds it; {@code meta} is null for one stored before registrations were kept. */
    record Stored(String namespace, String name, byte[] meta, long bytes, Instant lastWrite) {}

    /** A local file or folder; a temporary one (an object store's copy) is deleted on close. */
    record Local(Path path, boolean temporary) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            if (!temporary) return;
            if (Files.isDirectory(path)) {
                try (var walk = Files.walk(path)) {
                    for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
                }
            } else {
                Files.deleteIfExists(path);
            }
        }
    }
}
