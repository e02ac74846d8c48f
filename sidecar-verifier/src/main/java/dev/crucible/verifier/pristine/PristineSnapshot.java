package dev.crucible.verifier.pristine;

import dev.crucible.files.BoundedRead;
import dev.crucible.files.ContainedLinks;
import dev.crucible.files.ContainedRoot;
import dev.crucible.files.CopyStats;
import dev.crucible.files.FileKinds;
import dev.crucible.files.TreeCopier;
import dev.crucible.files.UnsafePathException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Copy and SHA-256 of every protected file, taken at reset into a directory outside the workspace.
 * Grading takes tests and test configuration from here, never from the agent's workspace.
 *
 * <p>A protected link (one the repository commits, {@code tests/data -> ../fixtures}) is kept as a link
 * with its target text, when that target stays inside the tree ({@link ContainedLinks}); one that leads
 * out is refused, with the reason ({@link #refusedLinks}), and graded without. A link is checked like a
 * file: changed, replaced or removed by the agent is a change; kept, it is none. Copies keep sparse files
 * sparse; what they took is {@link #copyStats}.
 */
public final class PristineSnapshot {
    private final Path dir;
    private final ProtectedPaths protectedPaths;
    private final Map<String, String> hashes;
    private final Map<String, String> links;
    private final Map<String, String> refusedLinks;
    private final Map<String, String> refusedTargets;
    private final CopyStats copyStats;
    private final Map<String, Long> sizes = new TreeMap<>();
    private final Map<String, Long> mtimes = new TreeMap<>();

    private PristineSnapshot(Path dir, ProtectedPaths protectedPaths, Map<String, String> hashes, Map<String, String> links,
            Map<String, String> refusedLinks, Map<String, String> refusedTargets, CopyStats copyStats) {
        this.dir = dir;
        this.protectedPaths = protectedPaths;
        this.hashes = Collections.unmodifiableMap(hashes);
        this.links = Collections.unmodifiableMap(links);
        this.refusedLinks = Collections.unmodifiableMap(refusedLinks);
        this.refusedTargets = Map.copyOf(refusedTargets);
        this.copyStats = copyStats;
        for (String r : hashes.keySet()) {
            try {
                sizes.put(r, Files.size(dir.resolve(r)));
                mtimes.put(r, Files.getLastModifiedTime(dir.resolve(r)).toMillis());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public static PristineSnapshot take(Path workspace, ProtectedPaths protectedPaths, Path dir) {
        Map<String, String> hashes = new TreeMap<>();
        Map<String, String> links = new TreeMap<>();
        Map<String, String> refused = new TreeMap<>();
        Map<String, String> refusedTargets = new TreeMap<>();
        CopyStats stats = new CopyStats();
        ContainedRoot root;
        try {
            Files.createDirectories(dir);
            root = ContainedRoot.of(workspace, "workspace");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        WorkspaceWalker.walk(workspace, (rel, attrs) -> {
            if (!protectedPaths.isProtected(rel)) return;
            String r = rel.toString();
            Path target = dir.resolve(r);
            try {
                Files.createDirectories(target.getParent());
                if (attrs.isSymbolicLink()) {
                    String why = ContainedLinks.refusal(root, r);
                    if (why != null) {
                        refused.put(r, why + "; graded without it");
                        refusedTargets.put(r, Files.readSymbolicLink(workspace.resolve(r)).toString());
                        return;
                    }
                    if (TreeCopier.copyLink(null, r, workspace.resolve(r), target, stats)) links.put(r, Files.readSymbolicLink(target).toString());
                    return;
                }
                if (!TreeCopier.copyFile(r, workspace.resolve(r), target, true, stats)) return;
                target.toFile().setReadOnly();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            hashes.put(r, FileHashes.sha256(target));
        }, false, rel -> {
            if (protectedPaths.isProtected(rel)) stats.skip(rel.toString(), FileKinds.specialReason(workspace.resolve(rel)));
        });
        return new PristineSnapshot(dir, protectedPaths, hashes, links, refused, refusedTargets, stats.measure(dir));
    }

    public record Change(String path, String kind) {}

    /**
     * Protected files and links that were modified, deleted, replaced or added in the workspace since reset.
     * Every file is read through {@link BoundedRead} (issue 34): no link out of the workspace is followed,
     * anywhere in the path, no FIFO, device or socket is opened, at most the size seen at reset is hashed,
     * and each read has a deadline; a file the reader refuses was replaced, one gone in between is deleted.
     */
    public List<Change> changes(Path workspace) {
        List<Change> out = new ArrayList<>();
        BoundedRead reader;
        ContainedRoot root;
        try {
            reader = BoundedRead.of(workspace, "workspace");
            root = ContainedRoot.of(workspace, "workspace");
        } catch (IOException e) {
            throw new UncheckedIOException("the workspace cannot be read for the protected-file diff: " + e.getMessage(), e);
        }
        for (var e : hashes.entrySet()) {
            String kind = fileChange(reader, e.getKey(), sizes.get(e.getKey()), e.getValue());
            if (kind != null) out.add(new Change(e.getKey(), kind));
        }
        Map<String, String> seen = new TreeMap<>(links); // every link at reset, refused ones included, with its target text
        seen.putAll(refusedTargets);
        for (var e : seen.entrySet()) {
            String kind = linkChange(root, e.getKey(), e.getValue());
            if (kind != null) out.add(new Change(e.getKey(), kind));
        }
        WorkspaceWalker.walk(workspace, (rel, attrs) -> {
            String r = rel.toString();
            if (protectedPaths.isProtected(rel) && !keeps(r) && !refusedLinks.containsKey(r)) out.add(new Change(r, "added"));
        });
        return out;
    }

    /** How the protected file {@code rel} changed, or null: read through {@code reader}, never by path. */
    private static String fileChange(BoundedRead reader, String rel, long size, String hash) {
        try {
            BasicFileAttributes a = reader.lstat(rel);
            if (a == null) return "deleted";
            if (!a.isRegularFile()) return "replaced";
            // the size first: a test file replaced by a 1 TiB sparse one is told apart without reading a terabyte of holes
            if (a.size() != size) return "modified";
            String now = reader.sha256(rel, size); // grown since the lstat: TOO_BIG, refused like the rest
            if (now == null) return "deleted";
            return now.equals(hash) ? null : "modified";
        } catch (IOException refusedOrUnreadable) {
            // a link out, a FIFO/device/socket, swapped while read, or a folder in its path became a file: not the file reset saw
            return "replaced";
        }
    }

    /** How the protected link {@code rel} changed, or null; its folder is resolved inside the workspace. */
    private static String linkChange(ContainedRoot root, String rel, String target) {
        Path name = Path.of(rel);
        Path dir;
        try {
            dir = name.getParent() == null ? root.root() : root.resolve(name.getParent().toString(), "protected path");
        } catch (UnsafePathException | IOException refused) {
            return "replaced"; // its folder became a link out, or a file
        }
        Path f = dir.resolve(name.getFileName().toString());
        String now = linkText(f);
        if (now == null) return Files.exists(f, LinkOption.NOFOLLOW_LINKS) ? "replaced" : "deleted";
        return now.equals(target) ? null : "modified";
    }

    /** The target text of the link at {@code p}, or null when it is not a link. */
    private static String linkText(Path p) {
        try {
            return Files.isSymbolicLink(p) ? Files.readSymbolicLink(p).toString() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Puts protected files back as they were at reset and removes protected files the agent added. */
    public void restore(Path workspace) {
        ContainedRoot root;
        try {
            root = ContainedRoot.of(workspace, "workspace");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Change c : changes(workspace)) {
            Path target;
            try {
                // The folder is resolved inside the workspace (an agent's `tests -> /etc` is refused, never
                // written through); the file itself, a link included, is removed and written anew.
                Path rel = Path.of(c.path());
                Path parent = rel.getParent() == null ? root.root() : root.resolveForWrite(rel.getParent().toString(), "protected path");
                target = parent.resolve(rel.getFileName().toString());
            } catch (UnsafePathException | IOException refused) {
                continue; // the monitor reported the change; grading reads the pristine copy, not this
            }
            try {
                Files.deleteIfExists(target);
                if (c.kind().equals("added")) continue;
                Files.createDirectories(target.getParent());
                String link = links.containsKey(c.path()) ? links.get(c.path()) : refusedTargets.get(c.path());
                if (link != null) {
                    Files.createSymbolicLink(target, Path.of(link)); // as at reset, where it led out too: a link by itself reads nothing
                } else {
                    TreeCopier.copyFile(c.path(), dir.resolve(c.path()), target, true, new CopyStats());
                    target.toFile().setWritable(true);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public Path dir() { return dir; }

    /** The protected regular files and their SHA-256 (links are in {@link #links}). */
    public Map<String, String> hashes() { return hashes; }

    /** The protected links kept, by path, with their target text (each stays inside the tree). */
    public Map<String, String> links() { return links; }

    /** Protected links left out because they lead out of the tree, by path, with the reason. */
    public Map<String, String> refusedLinks() { return refusedLinks; }

    /** What the copy into {@link #dir} took: files, links, skipped entries, host disk allocated. */
    public CopyStats copyStats() { return copyStats; }

    public ProtectedPaths protectedPaths() { return protectedPaths; }

    /** Whether {@code rel} was a protected regular file at reset (one with a hash; links: {@link #keeps}). */
    public boolean contains(String rel) { return hashes.containsKey(rel); }

    /** Whether {@code rel} was a protected file or a kept protected link at reset: grading takes it from here. */
    public boolean keeps(String rel) { return hashes.containsKey(rel) || links.containsKey(rel); }

    /** Pristine files whose size or presence changed: a cheap check for every monitor scan. */
    public List<String> corruptedQuick() {
        List<String> bad = new ArrayList<>();
        for (var e : sizes.entrySet()) {
            Path f = dir.resolve(e.getKey());
            try {
                if (!Files.isRegularFile(f) || Files.size(f) != e.getValue() || Files.getLastModifiedTime(f).toMillis() != mtimes.get(e.getKey())) bad.add(e.getKey());
            } catch (IOException ex) {
                bad.add(e.getKey());
            }
        }
        bad.addAll(changedLinks());
        return bad;
    }

    /** Pristine files whose content no longer has the hash taken at reset (the grader's copy was edited). */
    public List<String> corrupted() {
        List<String> bad = new ArrayList<>();
        for (var e : hashes.entrySet()) {
            Path f = dir.resolve(e.getKey());
            if (!Files.isRegularFile(f) || !FileHashes.sha256(f).equals(e.getValue())) bad.add(e.getKey());
        }
        bad.addAll(changedLinks());
        return bad;
    }

    /** Pristine links that are no longer links to the target seen at reset. */
    private List<String> changedLinks() {
        List<String> bad = new ArrayList<>();
        for (var e : links.entrySet()) if (!e.getValue().equals(linkText(dir.resolve(e.getKey())))) bad.add(e.getKey());
        return bad;
    }
}
