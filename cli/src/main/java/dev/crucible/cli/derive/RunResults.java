package dev.crucible.cli.derive;

import dev.crucible.files.TreeDelete;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a person needs of derive's own {@code crucible run}s (the baseline's, a fix task's): each attempt's
 * top-level files (result.json, setup.log, agent.log, task.md) copied to a folder the user chose, then the
 * whole scratch folder deleted. A scratch holds the workspace kept after each run, with its venv or
 * node_modules (up to 580 MB), and a derive of many repositories left one per repository in /tmp for good
 * (173 of them on one machine). Files only: an attempt's sub-folders (sandbox, trajectory) are the bulk.
 */
final class RunResults {
    /** A top-level file larger than this is not kept (a log of that size is a runaway test, not a record). */
    static final long MAX_FILE = 16L << 20;

    private RunResults() {}

    /**
     * Copies each attempt's top-level files under {@code scratch} (and the scratch's own files, the manifest run)
     * to {@code keep}, then deletes {@code scratch}. Returns the files kept, relative to {@code keep}.
     */
    static List<String> keep(Path scratch, Path keep) throws IOException {
        try {
            return copy(scratch, keep);
        } finally {
            TreeDelete.delete(scratch);
        }
    }

    /** The copying half of {@link #keep}: the scratch stays (derive deletes it once its verdict is written). */
    static List<String> copy(Path scratch, Path keep) throws IOException {
        List<String> kept = new ArrayList<>();
        if (!Files.isDirectory(scratch, LinkOption.NOFOLLOW_LINKS)) return kept;
        TreeDelete.delete(keep); // an earlier derive's results must not stand beside this one's
        Files.createDirectories(keep);
        copyFiles(scratch, keep, "", kept);
        try (Stream<Path> s = Files.list(scratch)) {
            for (Path attempt : s.sorted().toList()) {
                if (!Files.isDirectory(attempt, LinkOption.NOFOLLOW_LINKS)) continue;
                String name = attempt.getFileName().toString();
                copyFiles(attempt, keep.resolve(name), name + "/", kept);
            }
        }
        return kept;
    }

    static void delete(Path scratch) throws IOException {
        TreeDelete.delete(scratch);
    }

    /**
     * Regular, non-hidden files directly in {@code from}. A link is kept only when it names a regular file inside
     * {@code from} (agent.log names the run's own log); a link elsewhere is not followed.
     */
    private static void copyFiles(Path from, Path to, String prefix, List<String> kept) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(from)) {
            files = s.filter(p -> !p.getFileName().toString().startsWith(".")).sorted().toList();
        }
        Path root = from.toRealPath();
        for (Path f : files) {
            Path source = f;
            if (Files.isSymbolicLink(f)) {
                Path target;
                try {
                    target = f.toRealPath();
                } catch (IOException gone) {
                    continue; // its target went with the run's volume
                }
                if (!target.startsWith(root)) continue;
                source = target;
            }
            if (!Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS) || Files.size(source) > MAX_FILE) continue;
            Files.createDirectories(to);
            Files.copy(source, to.resolve(f.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
            kept.add(prefix + f.getFileName());
        }
    }

    /** Where derive keeps a run's results: beside the manifest it writes ({@code env.yaml} → {@code env.baseline/}). */
    static Path besides(Path output, String suffix) {
        Path abs = output.toAbsolutePath().normalize();
        String name = abs.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String stem = dot > 0 ? name.substring(0, dot) : name;
        return abs.resolveSibling(stem + "." + suffix);
    }
}
