package dev.crucible.verifier.monitor;

import dev.crucible.contract.DetectorNames;

import dev.crucible.files.BoundedRead;
import dev.crucible.files.FileRefusal;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.pristine.WorkspaceWalker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The workspace scanner's access to a tree: listing and reads through {@link BoundedRead} (contained,
 * typed, bounded, timed). A file it would not read is a finding, made here: it was built to stall or
 * misdirect the monitor. A tree that does not exist (yet) reads as empty.
 */
final class TreeReads {
    /** Entries a scan lists at most (a workspace of more is not scanned; the final diff still covers protected files). */
    static final int MAX_TREE_ENTRIES = 1_000_000;

    private final BoundedRead reader;
    private final ProtectedPaths pp;

    TreeReads(Path root, ProtectedPaths pp) {
        BoundedRead r;
        try {
            r = BoundedRead.of(root, "workspace");
        } catch (IOException e) {
            r = null;
        }
        this.reader = r;
        this.pp = pp;
    }

    /**
     * The tree's regular files and links by relative path, as {@link WorkspaceWalker} would visit them
     * (its caches skipped), listed through openat without following links, each directory open watched
     * for a FIFO swapped in; null when it could not be listed whole (the refusal is reported).
     */
    Map<String, BasicFileAttributes> walk(Consumer<WorkspaceScanner.Raw> out) {
        if (reader == null) return Map.of();
        Map<String, BasicFileAttributes> all;
        try {
            long t0 = System.nanoTime();
            all = reader.tree("", MAX_TREE_ENTRIES, WorkspaceWalker.SKIP_DIRS);
            dev.crucible.verifier.exec.GradingPhases.since("scan_walk", t0);
        } catch (FileRefusal f) {
            refused(f, out);
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
        if (all == null) return Map.of();
        Map<String, BasicFileAttributes> files = new HashMap<>();
        all.forEach((r, a) -> {
            if (a.isRegularFile() || a.isSymbolicLink()) files.put(r, a);
        });
        return files;
    }

    /**
     * The change time (ctime, in nanoseconds) of the entry {@code rel} that {@link #walk} listed as {@code a}. Size and mtime
     * alone miss a same-size edit whose mtime was put back ({@code touch -r}); the agent cannot set ctime. Java's openat-based
     * streams expose no ctime, so it is an lstat by path, which opens nothing and reads no content, and it counts only when that
     * entry is the one the contained walk saw (same device and inode): a component swapped for a link since then yields
     * {@link #CHANGED}, so the file is read again through the contained reader, which refuses the link.
     * {@link #UNKNOWN} where it cannot be had (an undecodable name, gone): size and mtime decide then, as before.
     */
    long changeTime(String rel, BasicFileAttributes a) {
        return reader == null ? UNKNOWN : changeTime(reader.root(), rel, a);
    }

    /** As above, for the entry {@code rel} of the tree at {@code root} that a contained listing gave as {@code a}. */
    static long changeTime(Path root, String rel, BasicFileAttributes a) {
        if (a == null || a.fileKey() == null) return UNKNOWN;
        try {
            Map<String, Object> m = Files.readAttributes(root.resolve(rel), "unix:fileKey,ctime", LinkOption.NOFOLLOW_LINKS);
            if (!a.fileKey().equals(m.get("fileKey"))) return CHANGED;
            FileTime ct = (FileTime) m.get("ctime");
            return ct.to(TimeUnit.NANOSECONDS);
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    static final long UNKNOWN = -1;
    /** Never equal to a recorded change time: the file counts as changed. */
    static final long CHANGED = Long.MIN_VALUE;

    /** One bounded read; a refusal is reported (when {@code out} is given) and reads as absent. */
    byte[] read(String rel, long max, Consumer<WorkspaceScanner.Raw> out) {
        if (reader == null) return null;
        try {
            return reader.read(rel, max);
        } catch (FileRefusal f) {
            refused(f, out);
            return null;
        } catch (IOException | RuntimeException e) {
            return null; // vanished or unreadable: the next scan sees what it became
        }
    }

    /** Bounded reads of many files in one go; refused ones are reported and left out, as are absent ones. */
    Map<String, byte[]> readMany(List<String> rels, long max, Consumer<WorkspaceScanner.Raw> out) {
        return readMany(rels, max, out, true);
    }

    private Map<String, byte[]> readMany(List<String> rels, long max, Consumer<WorkspaceScanner.Raw> out, boolean retry) {
        Map<String, byte[]> got = new HashMap<>();
        if (reader == null || rels.isEmpty()) return got;
        try {
            for (var e : reader.readMany(rels, max).entrySet()) {
                if (e.getValue() instanceof byte[] b) got.put(e.getKey(), b);
                else if (e.getValue() instanceof FileRefusal f) refused(f, out);
            }
        } catch (FileRefusal f) {
            refused(f, out);
        } catch (IOException | RuntimeException e) {
            // the batch failed as a whole (its deadline passed under load): once more, then the next scan reads them
            if (retry && !Thread.currentThread().isInterrupted()) return readMany(rels, max, out, false);
        }
        return got;
    }

    /** SHA-256 of a file of {@code size} bytes (the deadline grows with it); null when it could not be read. */
    String sha256(String rel, long size, Consumer<WorkspaceScanner.Raw> out) {
        if (reader == null) return null;
        try {
            return reader.sha256(rel, size);
        } catch (FileRefusal f) {
            refused(f, out);
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Where protected files live a refused file is tampering with one (critical); elsewhere with the
     * grader's reading of the tree (high). A plain size over the bound is not reported: the file is only
     * left unread.
     */
    private void refused(FileRefusal f, Consumer<WorkspaceScanner.Raw> out) {
        if (out == null || !f.hostile()) return;
        String path = f.path().isEmpty() ? "." : f.path();
        boolean prot = pp.isProtected(Path.of(path));
        out.accept(new WorkspaceScanner.Raw(prot ? DetectorNames.PROTECTED_PATH : DetectorNames.GRADER_TAMPERING, prot ? "critical" : "high", path,
                f.kind().words() + " in place of a file the monitor reads; not read (it opens no FIFO, device or socket and follows no link out of the workspace)",
                GitWatch.HOSTILE));
    }

    /** The target text of the link at {@code p} (never followed), or null when it is not a link. */
    static String linkText(Path p) {
        try {
            return Files.isSymbolicLink(p) ? Files.readSymbolicLink(p).toString() : null;
        } catch (IOException e) {
            return null;
        }
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
