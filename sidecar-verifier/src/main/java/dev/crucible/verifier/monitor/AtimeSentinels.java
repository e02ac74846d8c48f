package dev.crucible.verifier.monitor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Detects reads of files nobody should read, without strace: the access time is set before the
 * modification time, so on a relatime mount (Linux's default) the kernel updates it on the very next
 * read, however short-lived the reading process. noatime mounts defeat this; the process sampler
 * still sees open descriptors there.
 */
final class AtimeSentinels {
    private static final FileTime ARMED = FileTime.fromMillis(1_000);
    /**
     * Files (by device and inode) that some grading in this process is reading or has read: an access
     * time cannot say whose process read a file, so a sibling attempt's grading must not be taken for
     * this attempt's agent. Their reads stay visible to the process sampler, which knows the reader.
     */
    private static final Set<Object> GRADED = ConcurrentHashMap.newKeySet();
    private final Map<Path, Boolean> files = new LinkedHashMap<>();
    private final Map<Path, Object> keys = new LinkedHashMap<>();

    void arm(List<Path> paths) {
        for (Path p : paths) {
            try {
                Files.getFileAttributeView(p, BasicFileAttributeView.class).setTimes(null, ARMED, null);
                files.put(p, false);
                Object key = Files.readAttributes(p, BasicFileAttributes.class).fileKey();
                if (key != null) {
                    keys.put(p, key);
                    GRADED.remove(key); // re-armed for a new episode: reads from here on are attributable again
                }
            } catch (IOException e) {
                // unreadable or vanished: nothing to watch
            }
        }
    }

    /** Files read since {@link #arm}; each is reported once. */
    List<Path> readSinceArmed() {
        List<Path> read = new ArrayList<>();
        for (var e : files.entrySet()) {
            if (e.getValue()) continue;
            Object key = keys.get(e.getKey());
            if (key != null && GRADED.contains(key)) continue;
            try {
                FileTime at = Files.readAttributes(e.getKey(), BasicFileAttributes.class).lastAccessTime();
                if (at.toMillis() > ARMED.toMillis()) {
                    e.setValue(true);
                    read.add(e.getKey());
                }
            } catch (IOException ignored) {
                // deleted: the grader-integrity check reports that
            }
        }
        return read;
    }

    /** Stops watching (grading is about to read them itself) and tells sibling monitors so. */
    void disarm() {
        files.replaceAll((k, v) -> true);
        GRADED.addAll(keys.values());
    }
}
