package dev.crucible.files;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Deletes a tree without following links: a link is removed, never what it points to. */
public final class TreeDelete {
    private TreeDelete() {}

    public static void delete(Path p) throws IOException {
        delete(p, () -> false);
    }

    /**
     * As {@link #delete(Path)}, ending early (the rest left in place) once {@code stop} says so, checked before each
     * entry: removing 150,000 agent files takes minutes on a disk that discards on unlink, and a caller bounds its wait.
     */
    public static void delete(Path p, java.util.function.BooleanSupplier stop) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) return;
        Files.walkFileTree(p, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (stop.getAsBoolean()) return FileVisitResult.TERMINATE;
                // a read-only directory (tests often make them) would refuse its entries' removal
                if (!Files.isWritable(dir)) dir.toFile().setWritable(true, true);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (stop.getAsBoolean()) return FileVisitResult.TERMINATE;
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE;
                Files.deleteIfExists(file); // unreadable directory: try to remove it anyway
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
