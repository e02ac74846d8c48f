package dev.crucible.verifier.monitor;

import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * Hands the scanner's changed and deleted files to a {@link MonitorObserver}, with their content where it is small:
 * every read goes through the scanner's {@link TreeReads} (contained, typed, bounded, timed), so a FIFO, a link out
 * or a huge sparse file the agent left is described, never opened or followed.
 */
final class ChangeFeed {
    /** Content handed on (for a blob and a diff); larger files are hashed only. */
    static final long MAX_CONTENT = 1 << 20;
    /** Larger files are not even hashed at each change: it would cost a scan too much. */
    static final long MAX_HASHED = 64L << 20;
    private final MonitorObserver observer;

    ChangeFeed(MonitorObserver observer) {
        this.observer = observer;
    }

    /**
     * {@code known}: the files seen before this scan; {@code present}: the files there now. Each content hash taken goes
     * into {@code hashes} (by path), so the scanner need not read the file again to note it.
     */
    void report(TreeReads files, Map<String, BasicFileAttributes> changed, Set<String> known, Set<String> present, Map<String, String> hashes) {
        // hard links are one file: hashed once per scan, its content handed on with the first name only (host round 7,
        // case 16: 3,000 links to a 60 MB file were 180 GB of hashing, and grading ran out of time)
        Map<java.util.List<Object>, String> seen = new java.util.HashMap<>();
        try {
            changed.forEach((r, a) -> {
                String type = a.isRegularFile() ? "file" : a.isSymbolicLink() ? "link" : "other";
                java.util.List<Object> key = a.isRegularFile() && a.fileKey() != null
                        ? java.util.List.of(a.fileKey(), a.size(), a.lastModifiedTime().toMillis()) : null;
                String was = key == null ? null : seen.get(key);
                byte[] content = was == null && a.isRegularFile() && a.size() <= MAX_CONTENT ? files.read(r, MAX_CONTENT, null) : null;
                String hash = was != null ? was : content != null ? TreeReads.sha256(content)
                        : a.isRegularFile() && a.size() <= MAX_HASHED ? files.sha256(r, a.size(), null) : null;
                if (key != null && was == null && hash != null) seen.put(key, hash);
                if (hash != null) hashes.put(r, hash);
                observer.fileChanged(r, known.contains(r) ? "modified" : "added", type, a.size(), a.lastModifiedTime().toInstant(), hash, content);
            });
            for (String r : known) if (!present.contains(r)) observer.fileChanged(r, "deleted", null, 0, Instant.now(), null, null);
        } catch (RuntimeException e) {
            // the observer's trouble is not the monitor's: the scan goes on
        }
    }
}
