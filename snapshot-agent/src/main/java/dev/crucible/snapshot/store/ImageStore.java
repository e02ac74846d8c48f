package dev.crucible.snapshot.store;

import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The agent's only writable area. Layout:
 * <pre>
 *   ROOT/snapshots/ID/manifest.json   state, timings, sha256 per file
 *   ROOT/snapshots/ID/images/pre-N     CRIU pre-dumps (iterative, memory-tracked)
 *   ROOT/snapshots/ID/images/final     final CRIU dump (its "parent" link chains to pre-N)
 *   ROOT/snapshots/ID/workspace.tar    workspace archive
 *   ROOT/snapshots/ID/logs/            CRIU logs (not checksummed)
 *   ROOT/journal/                      in-flight freezes, replayed at start-up
 *   ROOT/work/                         CRIU work dirs for restores (images stay untouched)
 * </pre>
 * Every path is derived from a validated {@link SnapshotId} and checked to stay inside ROOT.
 */
public final class ImageStore {

    public static final String MANIFEST = "manifest.json";
    public static final String LOGS = "logs";

    private final Path root;

    public ImageStore(Path root) {
        try {
            Files.createDirectories(root);
            this.root = root.toRealPath();
            Files.createDirectories(this.root.resolve("snapshots"));
            Files.createDirectories(this.root.resolve("journal"));
            Files.createDirectories(this.root.resolve("work"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open image store " + root, e);
        }
    }

    public Path root() {
        return root;
    }

    public Path journalDir() {
        return root.resolve("journal");
    }

    /** Removes restore work directories (pid file, CRIU log) older than {@code cutoff}. */
    public List<String> removeWorkDirsOlderThan(java.time.Instant cutoff) {
        List<String> removed = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(root.resolve("work"))) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                if (Files.getLastModifiedTime(d).toInstant().isBefore(cutoff)) {
                    deleteTree(d);
                    removed.add(d.getFileName().toString());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return removed;
    }

    public Path workDir(String name) {
        Path dir = ContainedPaths.resolve(root.resolve("work"), name, "work directory");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }

    public Path snapshotDir(SnapshotId id) {
        return ContainedPaths.resolve(root.resolve("snapshots"), id.value(), "snapshotId");
    }

    /** A path inside one snapshot's directory, e.g. "images/final"; refuses anything that escapes it. */
    public Path inSnapshot(SnapshotId id, String relative) {
        return ContainedPaths.resolve(snapshotDir(id), relative, "snapshot path");
    }

    /** Creates the directory of a new snapshot; an existing id is refused so nothing stored is overwritten. */
    public Path create(Manifest manifest) {
        SnapshotId id = SnapshotId.of(manifest.id);
        Path dir = snapshotDir(id);
        try {
            Files.createDirectory(dir);
            Files.createDirectories(dir.resolve("images"));
            Files.createDirectories(dir.resolve(LOGS));
        } catch (FileAlreadyExistsException e) {
            throw new IllegalStateException("snapshotId '" + id + "' already exists in the store");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        save(manifest);
        return dir;
    }

    public void save(Manifest manifest) {
        ManifestFiles.writeAtomically(snapshotDir(SnapshotId.of(manifest.id)).resolve(MANIFEST), manifest);
    }

    public Optional<Manifest> find(SnapshotId id) {
        Path file = snapshotDir(id).resolve(MANIFEST);
        return Files.isRegularFile(file) ? Optional.of(ManifestFiles.read(file, Manifest.class)) : Optional.empty();
    }

    public Manifest require(SnapshotId id) {
        return find(id).orElseThrow(() -> new SnapshotNotFoundException(id));
    }

    /** All manifests, newest first; directories without a readable manifest are skipped. */
    public List<Manifest> list() {
        List<Manifest> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(root.resolve("snapshots"))) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                Path f = d.resolve(MANIFEST);
                if (Files.isDirectory(d) && Files.isRegularFile(f)) {
                    try {
                        out.add(ManifestFiles.read(f, Manifest.class));
                    } catch (UncheckedIOException ignored) {
                        // a torn directory (no manifest yet) is not listed; gc removes it later
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.sort(Comparator.comparing((Manifest m) -> m.createdAt, Comparator.nullsFirst(Comparator.naturalOrder())).reversed());
        return out;
    }

    /** Deletes a snapshot directory without following symlinks (CRIU's parent links stay links). */
    public boolean delete(SnapshotId id) {
        Path dir = snapshotDir(id);
        if (!Files.isDirectory(dir)) {
            return false;
        }
        deleteTree(dir);
        return true;
    }

    public static void deleteTree(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    public static long sizeOf(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0;
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
