package dev.crucible.verifier;

import dev.crucible.files.TreeDelete;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.stream.Stream;

/**
 * Whole-tree copy and delete, for the initial workspace copy, reset and cleanup. The source is a
 * workspace untrusted code has written, so neither ever follows a link found inside it:
 *
 * <ul>
 * <li>Links are copied as links, with their target text unchanged. Following them would copy
 *     whatever they point at (a host file the agent may not read itself) into the copy; dropping
 *     them would break repositories that carry links (a {@code README -> docs/README.md}). A copied
 *     link is harmless by itself: every tool and patcher resolves paths with
 *     {@link dev.crucible.files.ContainedRoot}, which refuses to go through a link out of the root.</li>
 * <li>Delete removes a link, never its target, and never changes a target's mode.</li>
 * </ul>
 */
public final class TreeCopy {
    private TreeCopy() {}

    public static void copy(Path src, Path dst) {
        Path from = src.toAbsolutePath().normalize();
        Path to = dst.toAbsolutePath().normalize();
        if (to.startsWith(from)) {
            // a copy inside its own source would copy itself again on each level it creates
            throw new IllegalArgumentException("cannot copy " + from + " into " + to + ", which is inside it");
        }
        try {
            Files.walkFileTree(src, new SimpleFileVisitor<>() { // no FOLLOW_LINKS: a link is visited as a file
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    Files.createDirectories(dst.resolve(src.relativize(dir).toString()));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.copy(file, dst.resolve(src.relativize(file).toString()), StandardCopyOption.REPLACE_EXISTING,
                            StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void deleteContents(Path dir) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return;
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) TreeDelete.delete(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void delete(Path p) {
        try {
            TreeDelete.delete(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
