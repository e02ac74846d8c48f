package dev.crucible.tracestore.store;

import dev.crucible.trajectory.BlobStore;
import dev.crucible.trajectory.TrajectoryReader;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The default backend: the volume. Each rollout's folder {@code rollouts/<ns>/<name>/} has the recorder's own layout
 * ({@code segments/000001.jsonl}, {@code blobs/sha256/ab/<hex>}), so {@link TrajectoryReader} and the ATIF export read
 * it in place, as they read a local run; a segment file is appended to and synced.
 */
public final class VolumeStorage implements TraceStorage {
    /** The rollout's registration, beside (not inside) the recorder's folders. */
    static final String META = "store-meta.json";

    private final Path root;

    public VolumeStorage(Path dir) throws IOException {
        this.root = Files.createDirectories(dir.resolve("rollouts"));
    }

    Path rolloutDir(String ns, String name) {
        return root.resolve(ns).resolve(name);
    }

    private Path segment(String ns, String name, int n) {
        return rolloutDir(ns, name).resolve(TrajectoryRecorder.SEGMENTS).resolve(String.format("%06d.jsonl", n));
    }

    private Path blob(String ns, String name, String hex) {
        return new BlobStore(rolloutDir(ns, name)).path(BlobStore.PREFIX + hex);
    }

    @Override
    public long segmentSize(String ns, String name, int n) throws IOException {
        Path seg = segment(ns, name, n);
        return Files.isRegularFile(seg, LinkOption.NOFOLLOW_LINKS) ? Files.size(seg) : 0;
    }

    @Override
    public byte[] readSegment(String ns, String name, int n, long offset, int len) throws IOException {
        byte[] stored = new byte[len];
        try (FileChannel ch = FileChannel.open(segment(ns, name, n), StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.wrap(stored);
            while (b.hasRemaining() && ch.read(b, offset + b.position()) >= 0) { /* reads the stored range */ }
        }
        return stored;
    }

    @Override
    public void appendSegment(String ns, String name, int n, long offset, byte[] chunk, int from, int len) throws IOException {
        Path seg = segment(ns, name, n);
        Files.createDirectories(seg.getParent());
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND,
                LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer b = ByteBuffer.wrap(chunk, from, len);
            while (b.hasRemaining()) ch.write(b);
            ch.force(false); // a crash of the store after the 200 must not lose what the sidecar then forgets
        }
    }

    @Override
    public boolean hasBlob(String ns, String name, String hex) {
        return Files.isRegularFile(blob(ns, name, hex), LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public void putBlob(String ns, String name, String hex, byte[] content) throws IOException {
        Path target = blob(ns, name, hex);
        Files.createDirectories(target.getParent());
        Path tmp = target.resolveSibling(".tmp-" + hex + "-" + Thread.currentThread().getId());
        try {
            Files.write(tmp, content, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.SYNC);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException e) {
            // another request stored it first: the same bytes
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    @Override
    public List<TraceFiles.SegmentInfo> segments(String ns, String name) throws IOException {
        Path dir = rolloutDir(ns, name);
        if (!Files.isDirectory(dir.resolve(TrajectoryRecorder.SEGMENTS), LinkOption.NOFOLLOW_LINKS)) return List.of();
        List<TraceFiles.SegmentInfo> out = new ArrayList<>();
        for (Path p : TrajectoryReader.segments(dir)) {
            out.add(new TraceFiles.SegmentInfo(Integer.parseInt(p.getFileName().toString().substring(0, 6)), Files.size(p)));
        }
        return out;
    }

    @Override
    public Local segmentFile(String ns, String name, int n) {
        Path p = segment(ns, name, n);
        return Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) ? new Local(p, false) : null;
    }

    @Override
    public Local blobFile(String ns, String name, String hex) {
        Path p = blob(ns, name, hex);
        return Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) ? new Local(p, false) : null;
    }

    @Override
    public Local folder(String ns, String name) {
        return new Local(rolloutDir(ns, name), false);
    }

    @Override
    public void copySegment(String ns, String name, int n, OutputStream out) throws IOException {
        Files.copy(segment(ns, name, n), out);
    }

    @Override
    public long delete(String ns, String name) throws IOException {
        Path dir = rolloutDir(ns, name);
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return 0;
        long bytes = 0;
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) bytes += Files.size(p);
                Files.delete(p);
            }
        }
        return bytes;
    }

    @Override
    public void putMeta(String ns, String name, byte[] json) throws IOException {
        Path dir = Files.createDirectories(rolloutDir(ns, name));
        Path tmp = dir.resolve(META + ".tmp");
        Files.write(tmp, json, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.SYNC);
        Files.move(tmp, dir.resolve(META), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public List<Stored> list() throws IOException {
        List<Stored> out = new ArrayList<>();
        try (Stream<Path> nss = Files.list(root)) {
            for (Path ns : nss.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> names = Files.list(ns)) {
                    for (Path dir : names.filter(Files::isDirectory).sorted().toList()) out.add(stored(dir));
                }
            }
        }
        return out;
    }

    private Stored stored(Path dir) throws IOException {
        long bytes = 0;
        long last = 0;
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).toList()) {
                last = Math.max(last, Files.getLastModifiedTime(p).toMillis());
                if (!p.getParent().equals(dir)) bytes += Files.size(p); // segments and blobs, not the registration
            }
        }
        Path meta = dir.resolve(META);
        return new Stored(dir.getParent().getFileName().toString(), dir.getFileName().toString(),
                Files.isRegularFile(meta) ? Files.readAllBytes(meta) : null, bytes, Instant.ofEpochMilli(last));
    }

    @Override
    public String describe() {
        return "volume " + root.getParent();
    }
}
