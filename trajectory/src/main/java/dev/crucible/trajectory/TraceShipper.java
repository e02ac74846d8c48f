package dev.crucible.trajectory;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sends a trajectory folder to the cluster's trace store while the run goes on (trace-store/README.md): every
 * {@code interval} the whole lines appended to the current segment since the last round, each blob those lines refer
 * to first (so the store never holds a reference it cannot serve), then the next segments. A crash loses what the
 * recorder wrote since the last round (its own flush is every second). It remembers one segment number and one
 * offset, nothing per blob or per event: memory is flat in the run's length. A refusal is kept in {@link #problems()}
 * and tried again next round, except one that cannot pass by retrying (a 400 or 413): then it stops and says so.
 * The token is read from {@code token} at each request (a projected ServiceAccount token is rotated on disk).
 */
public final class TraceShipper implements AutoCloseable {
    private static final Pattern BLOB = Pattern.compile("\"blob\":\"sha256:([0-9a-f]{64})\"");
    private static final int MAX_CHUNK = 4 << 20;
    private static final int MAX_PROBLEMS = 20;

    private final Path dir;
    private final URI rollout;
    private final Supplier<String> token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ScheduledExecutorService timer;
    private int segment = 1;
    private long offset;
    private long shippedBytes;
    private boolean stopped;
    private final List<String> problems = new ArrayList<>();

    /** {@code rollout}: the store's URL of this rollout, {@code http://store:8470/v1/namespaces/NS/rollouts/NAME}. */
    public TraceShipper(Path dir, URI rollout, Supplier<String> token) {
        this.dir = dir;
        this.rollout = URI.create(rollout.toString().replaceAll("/+$", "") + "/");
        this.token = token;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crucible-trace-shipper");
            t.setDaemon(true);
            return t;
        });
    }

    /** Ships every {@code interval} until {@link #close()}. */
    public TraceShipper start(Duration interval) {
        timer.scheduleWithFixedDelay(this::shipQuietly, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void shipQuietly() {
        try {
            ship();
        } catch (RuntimeException e) {
            problem("shipping failed: " + e);
        }
    }

    /** One round: whatever whole lines and blobs are not in the store yet. False when something was refused. */
    public synchronized boolean ship() {
        if (stopped) return false;
        try {
            while (true) {
                Path seg = dir.resolve(TrajectoryRecorder.SEGMENTS).resolve(String.format("%06d.jsonl", segment));
                if (!Files.isRegularFile(seg, LinkOption.NOFOLLOW_LINKS)) return true;
                byte[] lines = wholeLines(seg, offset);
                if (lines.length > 0) {
                    for (String hex : blobs(lines)) {
                        Path blob = new BlobStore(dir).path(BlobStore.PREFIX + hex);
                        if (!put("blobs/sha256/" + hex, Files.readAllBytes(blob))) return false;
                    }
                    if (!put("segments/" + segment + "?offset=" + offset, lines)) return false;
                    offset += lines.length;
                    shippedBytes += lines.length;
                    continue; // more of this segment may be waiting past MAX_CHUNK
                }
                Path next = dir.resolve(TrajectoryRecorder.SEGMENTS).resolve(String.format("%06d.jsonl", segment + 1));
                if (!Files.isRegularFile(next, LinkOption.NOFOLLOW_LINKS)) return true;
                // The recorder never goes back to a segment once the next exists: what is left here is a torn line.
                segment++;
                offset = 0;
            }
        } catch (IOException | InterruptedException e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            problem("the store could not be reached: " + e);
            return false;
        }
    }

    /** Whole lines from {@code from}, at most {@link #MAX_CHUNK} bytes (a line longer than that is sent whole). */
    private static byte[] wholeLines(Path seg, long from) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "r")) {
            long size = f.length();
            if (size <= from) return new byte[0];
            byte[] buf = new byte[(int) Math.min(size - from, MAX_CHUNK)];
            f.seek(from);
            f.readFully(buf);
            int end = buf.length;
            while (end > 0 && buf[end - 1] != '\n') end--;
            if (end == 0 && buf.length == MAX_CHUNK) { // one line past the chunk size: find its end
                byte[] rest = new byte[(int) Math.min(size - from, TrajectoryReader.MAX_LINE_BYTES + 1L)];
                f.seek(from);
                f.readFully(rest);
                for (int i = 0; i < rest.length; i++) if (rest[i] == '\n') return java.util.Arrays.copyOf(rest, i + 1);
                return new byte[0];
            }
            return java.util.Arrays.copyOf(buf, end);
        }
    }

    private static Set<String> blobs(byte[] lines) {
        Set<String> out = new LinkedHashSet<>();
        Matcher m = BLOB.matcher(new String(lines, StandardCharsets.UTF_8));
        while (m.find()) out.add(m.group(1));
        return out;
    }

    private boolean put(String path, byte[] body) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(rollout.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token.get()).PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) return true;
        problem(path.replaceAll("\\?.*", "") + ": " + r.statusCode() + " " + r.body());
        if (r.statusCode() == 400 || r.statusCode() == 413) stopped = true;
        return false;
    }

    private synchronized void problem(String p) {
        if (problems.size() < MAX_PROBLEMS) problems.add(p);
    }

    /** What the store refused or could not take so far (the first 20). */
    public synchronized List<String> problems() {
        return List.copyOf(problems);
    }

    /** Bytes of segments the store has taken from this shipper. */
    public synchronized long shippedBytes() {
        return shippedBytes;
    }

    /** True when a refusal stopped it: the store's copy is incomplete for good. */
    public synchronized boolean stopped() {
        return stopped;
    }

    /** Stops the rounds without a last one (what a crash does). */
    public void abandon() {
        timer.shutdownNow();
    }

    /** A last round, then stops. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ship();
    }
}
