package dev.crucible.verifier.pristine;

import dev.crucible.files.DeepPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/** Walks a workspace without following links, skipping caches that neither grading nor detection need. */
public final class WorkspaceWalker {
    /** Byte-code caches are skipped everywhere: a planted .pyc could stand in for a pristine test module. */
    public static final Set<String> SKIP_DIRS = Set.of(".git", "__pycache__", ".pytest_cache", ".mypy_cache", "node_modules", ".venv");

    private WorkspaceWalker() {}

    /** Calls {@code visit(relativePath, attrs)} for every regular file or symlink. */
    public static void walk(Path root, BiConsumer<Path, BasicFileAttributes> visit) { walk(root, visit, false); }

    /**
     * As {@link #walk(Path, BiConsumer)}; {@code skipTaggedCaches} also skips folders that hold a
     * {@code CACHEDIR.TAG} (the cache directory tag cargo writes into {@code target/}): a copy for grading
     * needs no build output, which can be gigabytes. Only copies skip them: a tag cannot hide a file from
     * the scans that report changes.
     */
    public static void walk(Path root, BiConsumer<Path, BasicFileAttributes> visit, boolean skipTaggedCaches) {
        walk(root, visit, skipTaggedCaches, rel -> { });
    }

    /**
     * As {@link #walk(Path, BiConsumer, boolean)}; {@code others} gets each FIFO, socket or device (never opened), and each folder
     * nested too deep to name ({@link DeepPaths#tooDeep}: never entered, as in every walk), for a copy to list.
     */
    public static void walk(Path root, BiConsumer<Path, BasicFileAttributes> visit, boolean skipTaggedCaches, Consumer<Path> others) {
        if (!Files.isDirectory(root)) return;
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    if (!dir.equals(root) && SKIP_DIRS.contains(dir.getFileName().toString())) return FileVisitResult.SKIP_SUBTREE;
                    if (DeepPaths.tooDeep(root.relativize(dir))) { // past what host code can name: skipped, and given to others to list
                        others.accept(root.relativize(dir));
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    if (skipTaggedCaches && !dir.equals(root) && Files.isRegularFile(dir.resolve("CACHEDIR.TAG"))) return FileVisitResult.SKIP_SUBTREE;
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (attrs.isRegularFile() || attrs.isSymbolicLink()) visit.accept(root.relativize(file), attrs);
                    else if (attrs.isOther()) others.accept(root.relativize(file));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) {
                    return FileVisitResult.CONTINUE; // vanished while walking: the agent is still writing
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
