package dev.crucible.verifier.pristine;

import dev.crucible.files.ContainedRoot;
import dev.crucible.files.UnsafePathException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Copy and SHA-256 of every protected file, taken at reset into a directory outside the workspace.
 * Grading takes tests and test configuration from here, never from the agent's workspace.
 */
public final class PristineSnapshot {
    private final Path dir;
    private final ProtectedPaths protectedPaths;
    private final Map<String, String> hashes;
    private final Map<String, Long> sizes = new TreeMap<>();
    private final Map<String, Long> mtimes = new TreeMap<>();

    private PristineSnapshot(Path dir, ProtectedPaths protectedPaths, Map<String, String> hashes) {
        this.dir = dir;
        this.protectedPaths = protectedPaths;
        this.hashes = Collections.unmodifiableMap(hashes);
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
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        WorkspaceWalker.walk(workspace, (rel, attrs) -> {
            if (!attrs.isRegularFile() || !protectedPaths.isProtected(rel)) return;
            Path target = dir.resolve(rel.toString());
            try {
                Files.createDirectories(target.getParent());
                Files.copy(workspace.resolve(rel), target, StandardCopyOption.REPLACE_EXISTING);
                target.toFile().setReadOnly();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            hashes.put(rel.toString(), FileHashes.sha256(target));
        });
        return new PristineSnapshot(dir, protectedPaths, hashes);
    }

    public record Change(String path, String kind) {}

    /** Protected files that were modified, deleted or added in the workspace since reset. */
    public List<Change> changes(Path workspace) {
        List<Change> out = new ArrayList<>();
        for (var e : hashes.entrySet()) {
            Path f = workspace.resolve(e.getKey());
            if (!Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                out.add(new Change(e.getKey(), Files.exists(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? "replaced" : "deleted"));
            } else if (!FileHashes.sha256(f).equals(e.getValue())) {
                out.add(new Change(e.getKey(), "modified"));
            }
        }
        WorkspaceWalker.walk(workspace, (rel, attrs) -> {
            if (protectedPaths.isProtected(rel) && !hashes.containsKey(rel.toString())) out.add(new Change(rel.toString(), "added"));
        });
        return out;
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
                if (!c.kind().equals("added")) {
                    Files.createDirectories(target.getParent());
                    Files.copy(dir.resolve(c.path()), target, StandardCopyOption.REPLACE_EXISTING);
                    target.toFile().setWritable(true);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public Path dir() { return dir; }

    public Map<String, String> hashes() { return hashes; }

    public ProtectedPaths protectedPaths() { return protectedPaths; }

    public boolean contains(String rel) { return hashes.containsKey(rel); }

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
        return bad;
    }

    /** Pristine files whose content no longer has the hash taken at reset (the grader's copy was edited). */
    public List<String> corrupted() {
        List<String> bad = new ArrayList<>();
        for (var e : hashes.entrySet()) {
            Path f = dir.resolve(e.getKey());
            if (!Files.isRegularFile(f) || !FileHashes.sha256(f).equals(e.getValue())) bad.add(e.getKey());
        }
        return bad;
    }
}
