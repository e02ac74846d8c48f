package dev.crucible.files;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Predicate;

/**
 * Copies a tree of untrusted files: folders, regular files through {@link SparseFiles} (holes stay
 * holes), links as links (never followed), and nothing else: a FIFO, socket or device is left out and
 * listed, never opened. Files the source has hard-linked together are hard-linked in the copy too (one
 * copy of the data, as the source has it): a 64 MiB file with 40 names stays 64 MiB, not 2.6 GB, and the copy
 * behaves as the source does. Returns what it did as {@link CopyStats}, its allocation measured on the
 * destination. Entries that vanish while it walks are listed too (the source may still be changing), and so is a folder
 * nested too deep to name ({@link DeepPaths}), which is skipped with all it holds.
 */
public final class TreeCopier {
    /** What becomes of links. */
    public enum Links {
        /** Copied with their target text unchanged, wherever it leads (the workspace keeps its own links). */
        AS_IS,
        /** Copied only when they stay inside the tree ({@link ContainedLinks}); others are left out with the reason. */
        CONTAINED
    }

    /**
     * @param links         what becomes of links
     * @param preserveTimes whether files keep their modification time (permission bits are always kept)
     * @param skipDir       folders (relative to the source) that are not copied at all, silently
     * @param skipFile      files and links (relative to the source) that are not copied, silently
     */
    public record Options(Links links, boolean preserveTimes, Predicate<Path> skipDir, Predicate<Path> skipFile) {
        public static Options of(Links links) { return new Options(links, true, d -> false, f -> false); }

        public Options skipping(Predicate<Path> dirs) {
            Predicate<Path> before = skipDir;
            return new Options(links, preserveTimes, d -> before.test(d) || dirs.test(d), skipFile);
        }

        public Options skippingFiles(Predicate<Path> files) {
            Predicate<Path> before = skipFile;
            return new Options(links, preserveTimes, skipDir, f -> before.test(f) || files.test(f));
        }
    }

    private TreeCopier() {}

    public static CopyStats copy(Path src, Path dst, Options opt) throws IOException {
        Path from = src.toAbsolutePath().normalize();
        Path to = dst.toAbsolutePath().normalize();
        ContainedRoot contained = opt.links() == Links.CONTAINED ? ContainedRoot.of(from, "tree") : null;
        CopyStats stats = new CopyStats();
        Files.walkFileTree(from, new SimpleFileVisitor<>() { // no FOLLOW_LINKS: a link is visited as a file
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path rel = from.relativize(dir);
                if (dir.equals(to) || (!dir.equals(from) && opt.skipDir().test(rel))) return FileVisitResult.SKIP_SUBTREE;
                if (DeepPaths.tooDeep(rel)) { // its copy could not be named: skipped and listed, the copy goes on
                    stats.skip(DeepPaths.describe(rel.toString()), DeepPaths.REASON);
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Path d = BytePaths.under(to, rel);
                if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(d); // a file or link in the way is replaced, never written through
                    Files.createDirectories(d);
                }
                stats.directory();
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path relPath = from.relativize(file);
                if (opt.skipFile().test(relPath)) return FileVisitResult.CONTINUE;
                String rel = relPath.toString();
                Path d = BytePaths.under(to, relPath);
                if (attrs.isSymbolicLink()) copyLink(contained, rel, file, d, stats);
                else copyFile(rel, file, d, opt.preserveTimes(), stats);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                String rel = from.relativize(file).toString();
                stats.skip(rel, e instanceof NoSuchFileException ? vanished(rel) : "unreadable: " + e.getMessage());
                return FileVisitResult.CONTINUE;
            }
        });
        return stats.measure(to);
    }

    /**
     * Copies regular file {@code src} ({@code rel} in messages) to {@code dst}, holes kept, counted in {@code stats};
     * false, and listed in {@code stats}, when it is not a regular file (a FIFO is never opened) or vanished.
     */
    public static boolean copyFile(String rel, Path src, Path dst, boolean preserveTimes, CopyStats stats) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(src, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile()) {
                stats.skip(rel, a.isOther() ? FileKinds.specialReason(src) : "is " + FileKinds.of(src) + ", not a regular file");
                return false;
            }
            Object key = multiplyLinked(src) ? a.fileKey() : null;
            Path first = key == null ? null : stats.linkedCopy(key);
            if (first != null && linkTo(first, dst)) {
                stats.hardLink();
                return true;
            }
            long allocated = SparseFiles.copy(src, dst);
            if (preserveTimes) Files.setLastModifiedTime(dst, a.lastModifiedTime());
            stats.file(a.size(), allocated);
            if (key != null) stats.copiedLinked(key, dst);
            return true;
        } catch (NotCopiedException e) {
            stats.skip(rel, e.reason());
        } catch (NoSuchFileException e) {
            stats.skip(rel, vanished(rel));
        }
        return false;
    }

    /**
     * Why a file the walk listed could not be found when copied: gone meanwhile, or a name that is not valid UTF-8
     * (the JVM decodes such bytes as U+FFFD, and the name it encodes back is another one), which host code cannot open.
     */
    static String vanished(String rel) {
        return rel.indexOf('\uFFFD') >= 0 ? "its name is not valid UTF-8; not copied (host code cannot name such a file)" : "vanished while copied";
    }

    private static boolean multiplyLinked(Path src) {
        try {
            return ((Number) Files.getAttribute(src, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).intValue() > 1;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /** {@code dst} as a hard link to the earlier copy {@code first}; false (then a plain copy is made) when that is gone or not a file. */
    private static boolean linkTo(Path first, Path dst) {
        try {
            if (!Files.isRegularFile(first, LinkOption.NOFOLLOW_LINKS)) return false;
            Files.deleteIfExists(dst); // a link there is removed, not written through
            Files.createLink(dst, first);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Copies the link {@code rel} (at {@code file}) to {@code dst} as a link with the same target text, when
     * {@code contained} (if not null) finds it stays inside the tree; false, and listed in {@code stats}, when not.
     */
    public static boolean copyLink(ContainedRoot contained, String rel, Path file, Path dst, CopyStats stats) throws IOException {
        try {
            if (contained != null) {
                if (!file.endsWith(rel)) { // its text names another entry (not UTF-8): containment is checked by name, so it is left out
                    stats.skip(rel, vanished(rel));
                    return false;
                }
                String why = ContainedLinks.refusal(contained, rel);
                if (why != null) {
                    stats.skip(rel, why);
                    return false;
                }
            }
            Path target = Files.readSymbolicLink(file);
            Files.deleteIfExists(dst);
            Files.createSymbolicLink(dst, target);
            stats.link();
            return true;
        } catch (NoSuchFileException e) {
            stats.skip(rel, vanished(rel));
            return false;
        } catch (java.nio.file.NotLinkException e) {
            stats.skip(rel, "was replaced while copied; not copied");
            return false;
        }
    }
}
