package dev.crucible.tracestore.store;

import dev.crucible.tracestore.common.StoreException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.trajectory.BlobStore;
import dev.crucible.trajectory.TrajectoryReader;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The volume: each rollout's folder {@code rollouts/<ns>/<name>/} has the recorder's own layout ({@code segments/000001.jsonl},
 * {@code blobs/sha256/ab/<hex>}), so {@link TrajectoryReader} and the ATIF export read it as they read a local run.
 * Segments are only appended to; a byte range sent again must equal what is stored (a retry), anything else is a conflict.
 * Callers hold the rollout's lock ({@code TraceService}); this class checks input and moves bytes.
 */
public final class TraceFiles {
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final int MAX_SEGMENT_NUMBER = 999_999;

    private final Path root;

    public TraceFiles(Path dir) throws IOException {
        this.root = Files.createDirectories(dir.resolve("rollouts"));
    }

    /** The rollout's folder; a namespace or name that is not a Kubernetes name is refused naming the field. */
    public Path rolloutDir(String namespace, String name) {
        if (namespace == null || !NAMESPACE.matcher(namespace).matches()) {
            throw StoreException.badRequest("namespace '" + namespace + "' is not a Kubernetes namespace name (RFC 1123 label)");
        }
        if (name == null || name.length() > 253 || !NAME.matcher(name).matches()) {
            throw StoreException.badRequest("name '" + name + "' is not a Kubernetes object name (RFC 1123 subdomain)");
        }
        return root.resolve(namespace).resolve(name);
    }

    public boolean exists(String namespace, String name) {
        return Files.isDirectory(rolloutDir(namespace, name), LinkOption.NOFOLLOW_LINKS);
    }

    public Path segment(String namespace, String name, int n) {
        if (n < 1 || n > MAX_SEGMENT_NUMBER) {
            throw StoreException.badRequest("segment number " + n + " is outside 1.." + MAX_SEGMENT_NUMBER);
        }
        return rolloutDir(namespace, name).resolve(TrajectoryRecorder.SEGMENTS).resolve(String.format("%06d.jsonl", n));
    }

    public Path blob(String namespace, String name, String hex) {
        if (hex == null || !HEX.matcher(hex).matches()) {
            throw StoreException.badRequest("blob hash '" + hex + "' is not 64 lower-case hex digits (sha256)");
        }
        return new BlobStore(rolloutDir(namespace, name)).path(BlobStore.PREFIX + hex);
    }

    /**
     * Checks that {@code chunk} is whole JSON Lines of trajectory events (each an object with a numeric {@code seq} and
     * a text {@code kind}); returns them, or throws naming the first bad line.
     */
    public static List<JsonNode> parseEvents(int segment, byte[] chunk) {
        if (chunk.length == 0) throw StoreException.badRequest("segment " + segment + ": empty body");
        if (chunk[chunk.length - 1] != '\n') {
            throw StoreException.badRequest("segment " + segment + ": the body must end with a newline (whole JSON Lines only)");
        }
        List<JsonNode> events = new ArrayList<>();
        int start = 0;
        int line = 0;
        for (int i = 0; i < chunk.length; i++) {
            if (chunk[i] != '\n') continue;
            line++;
            if (i - start > TrajectoryReader.MAX_LINE_BYTES) {
                throw StoreException.tooLarge("segment " + segment + " line " + line + ": " + (i - start)
                        + " bytes, over the reader's line limit of " + TrajectoryReader.MAX_LINE_BYTES);
            }
            JsonNode e;
            try {
                e = JSON.readTree(chunk, start, i - start);
            } catch (IOException ex) {
                throw StoreException.badRequest("segment " + segment + " line " + line + ": not JSON ("
                        + (ex instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage() : ex.getMessage()) + ")");
            }
            if (e == null || !e.isObject() || !e.path("seq").canConvertToLong() || !e.path("seq").isIntegralNumber()
                    || e.path("seq").asLong() < 1 || !e.path("kind").isTextual()) {
                throw StoreException.badRequest("segment " + segment + " line " + line
                        + ": not a trajectory event (an object with a positive integer 'seq' and a text 'kind')");
            }
            events.add(e);
            start = i + 1;
        }
        return events;
    }

    /** The result of an append: the segment's size after it and the bytes newly stored (0 for a retry). */
    public record Appended(long size, long added) {}

    /** How many bytes of {@code chunk} at {@code offset} are new; throws on a gap or a difference with what is stored. */
    public long newBytes(String namespace, String name, int n, long offset, byte[] chunk) throws IOException {
        Path seg = segment(namespace, name, n);
        if (n > 1 && !Files.isRegularFile(segment(namespace, name, n - 1), LinkOption.NOFOLLOW_LINKS)) {
            throw StoreException.conflict("segment " + n + " of " + namespace + "/" + name + " comes before segment "
                    + (n - 1) + " (segments are sent in order)");
        }
        long cur = Files.isRegularFile(seg, LinkOption.NOFOLLOW_LINKS) ? Files.size(seg) : 0;
        if (offset < 0 || offset > cur) {
            throw StoreException.conflict("segment " + n + " of " + namespace + "/" + name + " holds " + cur
                    + " bytes; offset " + offset + " would leave a gap (send from offset " + cur + ")");
        }
        int overlap = (int) Math.min(cur - offset, chunk.length);
        if (overlap > 0) {
            byte[] stored = new byte[overlap];
            try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.READ)) {
                ByteBuffer b = ByteBuffer.wrap(stored);
                while (b.hasRemaining() && ch.read(b, offset + b.position()) >= 0) { /* reads the stored range */ }
            }
            if (!Arrays.equals(stored, 0, overlap, chunk, 0, overlap)) {
                throw StoreException.conflict("segment " + n + " of " + namespace + "/" + name + " differs from what is"
                        + " stored at bytes " + offset + ".." + (offset + overlap) + " (segments are append-only)");
            }
        }
        return chunk.length - overlap;
    }

    /** Appends the new tail of {@code chunk} (after {@link #newBytes}), synced to the disk before it returns. */
    public Appended append(String namespace, String name, int n, long offset, byte[] chunk) throws IOException {
        Path seg = segment(namespace, name, n);
        long add = newBytes(namespace, name, n, offset, chunk);
        if (add == 0) return new Appended(Files.size(seg), 0);
        Files.createDirectories(seg.getParent());
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND,
                LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer b = ByteBuffer.wrap(chunk, (int) (chunk.length - add), (int) add);
            while (b.hasRemaining()) ch.write(b);
            ch.force(false); // a crash of the store after the 200 must not lose what the sidecar then forgets
            return new Appended(ch.size(), add);
        }
    }

    /** Stores a blob under its hash after checking it; the bytes newly stored (0 when it was there). */
    public long putBlob(String namespace, String name, String hex, byte[] content) throws IOException {
        Path target = blob(namespace, name, hex);
        String actual = sha256(content);
        if (!actual.equals(hex)) {
            throw StoreException.badRequest("blob body hashes to sha256:" + actual + ", not to the sha256:" + hex + " it was sent as");
        }
        if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) return 0;
        Files.createDirectories(target.getParent());
        Path tmp = target.resolveSibling(".tmp-" + hex + "-" + Thread.currentThread().getId());
        try {
            Files.write(tmp, content, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.SYNC);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException e) {
            return 0;
        } finally {
            Files.deleteIfExists(tmp);
        }
        return content.length;
    }

    public record SegmentInfo(int number, long bytes) {}

    public List<SegmentInfo> segments(String namespace, String name) throws IOException {
        Path dir = rolloutDir(namespace, name);
        if (!Files.isDirectory(dir.resolve(TrajectoryRecorder.SEGMENTS), LinkOption.NOFOLLOW_LINKS)) return List.of();
        List<SegmentInfo> out = new ArrayList<>();
        for (Path p : TrajectoryReader.segments(dir)) {
            out.add(new SegmentInfo(Integer.parseInt(p.getFileName().toString().substring(0, 6)), Files.size(p)));
        }
        return out;
    }

    /** Removes a rollout's folder; the bytes it held. */
    public long delete(String namespace, String name) throws IOException {
        Path dir = rolloutDir(namespace, name);
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return 0;
        long[] bytes = {0};
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) bytes[0] += Files.size(p);
                Files.delete(p);
            }
        }
        return bytes[0];
    }

    static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
