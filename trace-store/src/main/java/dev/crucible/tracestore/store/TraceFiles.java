package dev.crucible.tracestore.store;

import dev.crucible.tracestore.common.StoreException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.trajectory.TrajectoryReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rules of the store's trajectories, on whichever {@link TraceStorage} holds them: a namespace, a name, a segment
 * number and a blob hash are checked here (a bad one is a 400 naming the field) before the backend sees them.
 * Segments are only appended to; a byte range sent again must equal what is stored (a retry), anything else is a
 * conflict. Callers hold the rollout's lock ({@code TraceService}); this class checks input and moves bytes.
 */
public final class TraceFiles {
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final int MAX_SEGMENT_NUMBER = 999_999;

    private final TraceStorage storage;

    public TraceFiles(TraceStorage storage) {
        this.storage = storage;
    }

    public TraceStorage storage() {
        return storage;
    }

    /** Checks a rollout's names; a namespace or name that is not a Kubernetes name is refused naming the field. */
    public void check(String namespace, String name) {
        if (namespace == null || !NAMESPACE.matcher(namespace).matches()) {
            throw StoreException.badRequest("namespace '" + namespace + "' is not a Kubernetes namespace name (RFC 1123 label)");
        }
        if (name == null || name.length() > 253 || !NAME.matcher(name).matches()) {
            throw StoreException.badRequest("name '" + name + "' is not a Kubernetes object name (RFC 1123 subdomain)");
        }
    }

    /** Checks a segment's names and number. */
    public void checkSegment(String namespace, String name, int n) {
        check(namespace, name);
        if (n < 1 || n > MAX_SEGMENT_NUMBER) {
            throw StoreException.badRequest("segment number " + n + " is outside 1.." + MAX_SEGMENT_NUMBER);
        }
    }

    /** Checks a blob's names and hash. */
    public void checkBlob(String namespace, String name, String hex) {
        check(namespace, name);
        if (hex == null || !HEX.matcher(hex).matches()) {
            throw StoreException.badRequest("blob hash '" + hex + "' is not 64 lower-case hex digits (sha256)");
        }
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
        checkSegment(namespace, name, n);
        if (n > 1 && storage.segmentSize(namespace, name, n - 1) == 0) {
            throw StoreException.conflict("segment " + n + " of " + namespace + "/" + name + " comes before segment "
                    + (n - 1) + " (segments are sent in order)");
        }
        long cur = storage.segmentSize(namespace, name, n);
        if (offset < 0 || offset > cur) {
            throw StoreException.conflict("segment " + n + " of " + namespace + "/" + name + " holds " + cur
                    + " bytes; offset " + offset + " would leave a gap (send from offset " + cur + ")");
        }
        int overlap = (int) Math.min(cur - offset, chunk.length);
        if (overlap > 0) {
            byte[] stored = storage.readSegment(namespace, name, n, offset, overlap);
            if (!Arrays.equals(stored, 0, overlap, chunk, 0, overlap)) {
                throw StoreException.conflict("segment " + n + " of " + namespace + "/" + name + " differs from what is"
                        + " stored at bytes " + offset + ".." + (offset + overlap) + " (segments are append-only)");
            }
        }
        return chunk.length - overlap;
    }

    /** Appends the new tail of {@code chunk} (after {@link #newBytes}), durable before it returns. */
    public Appended append(String namespace, String name, int n, long offset, byte[] chunk) throws IOException {
        long add = newBytes(namespace, name, n, offset, chunk);
        if (add == 0) return new Appended(storage.segmentSize(namespace, name, n), 0);
        storage.appendSegment(namespace, name, n, offset + chunk.length - add, chunk, (int) (chunk.length - add), (int) add);
        return new Appended(offset + chunk.length, add);
    }

    /** Stores a blob under its hash after checking it; the bytes newly stored (0 when it was there). */
    public long putBlob(String namespace, String name, String hex, byte[] content) throws IOException {
        checkBlob(namespace, name, hex);
        String actual = sha256(content);
        if (!actual.equals(hex)) {
            throw StoreException.badRequest("blob body hashes to sha256:" + actual + ", not to the sha256:" + hex + " it was sent as");
        }
        if (storage.hasBlob(namespace, name, hex)) return 0;
        storage.putBlob(namespace, name, hex, content);
        return content.length;
    }

    public record SegmentInfo(int number, long bytes) {}

    public List<SegmentInfo> segments(String namespace, String name) throws IOException {
        check(namespace, name);
        return storage.segments(namespace, name);
    }

    /** Segment {@code n} as a local file to send; null when it is not stored. */
    public TraceStorage.Local segmentFile(String namespace, String name, int n) throws IOException {
        checkSegment(namespace, name, n);
        return storage.segmentFile(namespace, name, n);
    }

    /** A blob as a local file to send; null when it is not stored. */
    public TraceStorage.Local blobFile(String namespace, String name, String hex) throws IOException {
        checkBlob(namespace, name, hex);
        return storage.blobFile(namespace, name, hex);
    }

    /** Removes a rollout's trajectory; the bytes it held. */
    public long delete(String namespace, String name) throws IOException {
        check(namespace, name);
        return storage.delete(namespace, name);
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
