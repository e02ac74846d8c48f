package dev.crucible.verifier.grade.oracle;

import dev.crucible.files.TreeCopier;
import dev.crucible.files.TreeDelete;
import dev.crucible.verifier.pristine.SetupDependencies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The oracle workers' copy of the grading tree (one per grading, shared by its workers and the processes its tests
 * start: {@code OracleWorkers}), which their boxes show writable where the tree lies (blind round 11, x05: code that was
 * correct only where its own folder is read-only told grading from the agent's box, whose workspace is writable). What
 * they write there is thrown away with the grading; the trusted side never reads it (it reads the grading tree). The trusted test files are copied as empty files: the box's masks lie over them as before. {@code .git}
 * and setup's dependency folders are not copied: they are bound read-only from the tree ({@link #keptInPlace}), as large
 * as they can be.
 */
final class WorkerTree {
    private WorkerTree() {}

    /** Folders of the tree bound read-only as they are, over the copy (absolute). */
    static List<Path> keptInPlace(Path root) {
        List<Path> out = new ArrayList<>();
        if (Files.isDirectory(root.resolve(".git"), LinkOption.NOFOLLOW_LINKS)) out.add(root.resolve(".git"));
        for (String d : SetupDependencies.find(root, false)) out.add(root.resolve(d));
        return out;
    }

    /**
     * Copies {@code root} into {@code to} (made fresh); {@code empty} (absolute: the masked test files, the hidden test data
     * bound over the copy) become empty files, never read. Returns {@code to}.
     */
    static Path copy(Path root, Path to, List<Path> empty) throws IOException {
        return copy(root, to, empty, List.of(), null);
    }

    /**
     * As {@link #copy(Path, Path, List)}, leaving {@code leftOut} (absolute files of the tree) out altogether, and then every
     * folder left empty that {@code agentRoot} (the workspace the agent's box showed; null: none) has no folder for: the
     * copy lists what the agent's box listed (blind round 11, x03: hidden tests and their data folder).
     */
    static Path copy(Path root, Path to, List<Path> empty, List<Path> leftOut, Path agentRoot) throws IOException {
        Set<Path> out = new HashSet<>(leftOut);
        copyAll(root, to, empty, out);
        if (agentRoot != null && !out.isEmpty()) {
            List<Path> dirs = new ArrayList<>();
            try (var s = Files.walk(to)) {
                s.filter(p -> !p.equals(to) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).forEach(dirs::add);
            }
            dirs.sort(Comparator.comparingInt(Path::getNameCount).reversed()); // deepest first: a folder of empty folders goes too
            for (Path d : dirs) {
                String rel = to.relativize(d).toString();
                boolean hadOne = Files.isDirectory(agentRoot.resolve(rel), LinkOption.NOFOLLOW_LINKS);
                boolean hidden = leftOut.stream().anyMatch(h -> h.startsWith(root.resolve(rel)));
                if (!hadOne && hidden) {
                    try (var s = Files.list(d)) {
                        if (s.findAny().isEmpty()) Files.delete(d);
                    }
                }
            }
        }
        return to;
    }

    /**
     * The copy is of the agent's files, so it is made by safe-files' {@link TreeCopier}: holes stay holes (a 3 GiB sparse
     * file was 3 GiB of real blocks per worker before: HostSideAttacksTest's sparse-3g), hard links stay links, links are
     * never followed, FIFOs and devices are left out unopened, a folder too deep to name is skipped.
     */
    private static void copyAll(Path root, Path to, List<Path> empty, Set<Path> leftOut) throws IOException {
        delete(to);
        Set<Path> kept = new HashSet<>();
        for (Path k : keptInPlace(root)) kept.add(root.relativize(k));
        Set<Path> skipped = new HashSet<>();
        for (Path f : leftOut) skipped.add(root.relativize(f));
        for (Path f : empty) skipped.add(root.relativize(f));
        TreeCopier.copy(root, to, TreeCopier.Options.of(TreeCopier.Links.AS_IS).skipping(d -> kept.contains(d) || skipped.contains(d))
                .skippingFiles(skipped::contains));
        for (Path k : kept) Files.createDirectories(to.resolve(k.toString())); // its mount point only
        for (Path f : empty) { // a mask's or the hidden data's mount point, never read
            Path t = to.resolve(root.relativize(f).toString());
            if (leftOut.contains(f) || !Files.isDirectory(t.getParent(), LinkOption.NOFOLLOW_LINKS)) continue;
            if (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) Files.createDirectories(t);
            else if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) && !Files.exists(t, LinkOption.NOFOLLOW_LINKS)) Files.createFile(t);
        }
        // the worker runs as the box's uid: it may write in every folder of its throwaway copy (the copy's own folders:
        // TreeCopier made them and followed no link)
        Files.walkFileTree(to, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
                d.toFile().setWritable(true, false);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Removes a copy; quietly (a folder the OS cleans up with the oracle's). */
    static void delete(Path p) {
        if (p == null || !Files.exists(p, LinkOption.NOFOLLOW_LINKS)) return;
        try {
            TreeDelete.delete(p);
        } catch (IOException | UncheckedIOException e) {
            // left for the oracle folder's own removal
        }
    }
}
