package dev.crucible.verifier.pristine;

import dev.crucible.files.CopyStats;
import dev.crucible.files.TreeCopier;
import dev.crucible.files.TreeDelete;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
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
 * <li>Regular files are copied with their holes ({@link dev.crucible.files.SparseFiles}): a
 *     {@code truncate -s 3G} file stays a few blocks of host disk. FIFOs, sockets and devices are
 *     left out and listed in the returned {@link CopyStats}, never opened.</li>
 * <li>Delete removes a link, never its target, and never changes a target's mode.</li>
 * </ul>
 */
public final class TreeCopy {
    private TreeCopy() {}

    /**
     * Copies {@code src} into {@code dst}: sparse files stay sparse, FIFOs, sockets and devices are left
     * out (listed in the result, never opened). Returns what the copy did and the host disk it took.
     */
    public static CopyStats copy(Path src, Path dst) {
        Path from = src.toAbsolutePath().normalize();
        Path to = dst.toAbsolutePath().normalize();
        if (to.startsWith(from)) {
            // a copy inside its own source would copy itself again on each level it creates
            throw new IllegalArgumentException("cannot copy " + from + " into " + to + ", which is inside it");
        }
        try {
            return TreeCopier.copy(from, to, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
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

    /**
     * Removes {@code p} in at most about {@code within}: a cleanup after a run's result must not hold the CLI past its deadline
     * however many, deep or slow the entries are. Returns null when it is gone, else what was left and where: moved out to the
     * temporary folder and being removed by a detached {@code rm -rf}, left for its volume's removal, or left in place (why).
     */
    public static String delete(Path p, java.time.Duration within) {
        return TreeRemoval.removeWithin(p, within);
    }

    public static void delete(Path p) {
        try {
            TreeDelete.delete(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
