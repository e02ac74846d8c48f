package dev.crucible.snapshot.disk;

import dev.crucible.files.DeepPaths;
import dev.crucible.files.StagedDirectory;
import dev.crucible.snapshot.store.DirectoryDigests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.FileVisitResult;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The workspace disk as a tar archive with a sha256. GNU tar is used (not a Java tar) because it
 * keeps modes, owners, sparse files and hard links exactly, and refuses '..' members on extract.
 * The archive is taken while the tree is frozen, so files and memory agree (CRIU checks the size
 * of every open file on restore). A folder nested past what a restore can name is left out and listed.
 */
public final class WorkspaceArchive {

    /** {@code leftOut}: folders nested too deep for a restore to name ({@link DeepPaths}), not archived, one line each. */
    public record Archive(Path file, long bytes, String sha256, long millis, List<String> leftOut) {
    }

    private WorkspaceArchive() {
    }

    public static Archive capture(Path workspace, Path tarFile) {
        if (!Files.isDirectory(workspace)) {
            throw new IllegalArgumentException("workspace " + workspace + " is not a directory");
        }
        long t0 = System.nanoTime();
        List<String> cmd = new ArrayList<>(List.of("tar", "--create", "--file", tarFile.toString(), "--directory", workspace.toString(),
                "--numeric-owner", "--sparse", "--anchored", "--no-wildcards"));
        List<String> deep = tooDeep(workspace);
        for (String rel : deep) cmd.add("--exclude=./" + rel);
        cmd.add(".");
        tar(cmd);
        try {
            return new Archive(tarFile, Files.size(tarFile), DirectoryDigests.sha256(tarFile),
                    (System.nanoTime() - t0) / 1_000_000, deep.stream().map(DeepPaths::line).toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The folders under {@code workspace} nested too deep to restore: tar archives them (it walks by descriptor), but no
     * extraction could make them, and a restore that fails is a snapshot lost. Links are not followed; the walk never goes
     * below such a folder, so no path it names is past PATH_MAX.
     */
    static List<String> tooDeep(Path workspace) {
        List<String> deep = new ArrayList<>();
        try {
            Files.walkFileTree(workspace, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    Path rel = workspace.relativize(dir);
                    if (!DeepPaths.tooDeep(rel)) return FileVisitResult.CONTINUE;
                    deep.add(rel.toString());
                    return FileVisitResult.SKIP_SUBTREE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE; // the tree is frozen; an entry tar cannot read fails the capture there
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return deep;
    }

    /** Verifies the sha256, then extracts into {@code outDir} (created; must be empty if it exists). */
    public static void restore(Path tarFile, String expectedSha256, Path outDir) {
        restore(tarFile, expectedSha256, outDir, staged -> { });
    }

    /**
     * Verifies the sha256 and extracts into a staging folder inside {@code outDir}, lets {@code finish}
     * complete it there (the branch's patches), and only then moves it into {@code outDir}. Any failure
     * removes the staging folder: {@code outDir} is left as it was (absent or empty). The staging folder
     * is inside, not beside, because {@code outDir} may be a pod's volume that a waiting container has
     * mounted: it must keep its identity, so it is filled, never replaced.
     */
    public static void restore(Path tarFile, String expectedSha256, Path outDir, Consumer<Path> finish) {
        if (Files.isDirectory(outDir)) {
            try (var entries = Files.list(outDir)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException("restore target " + outDir + " is not empty; nothing was overwritten");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        try (StagedDirectory staged = StagedDirectory.inside(outDir)) {
            extractInto(tarFile, expectedSha256, staged.path());
            finish.accept(staged.path());
            staged.publish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Verifies the sha256, then extracts into {@code emptyDir}. GNU tar's own rules keep every member
     * inside it: leading '/' is stripped, members and hard-link targets with '..' are refused, and a
     * link to an absolute or '..' target is written as a placeholder until the end, so a later
     * member cannot be written through it. Any refusal fails the extraction.
     */
    public static void extractInto(Path tarFile, String expectedSha256, Path emptyDir) {
        try {
            if (expectedSha256 != null && !DirectoryDigests.sha256(tarFile).equals(expectedSha256)) {
                throw new IllegalStateException("workspace archive " + tarFile + " fails its sha256 check; refusing to restore");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        tar(List.of("tar", "--extract", "--file", tarFile.toString(), "--directory", emptyDir.toString(),
                "--numeric-owner"));
    }

    private static void tar(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(1, TimeUnit.HOURS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed: "
                        + new String(out, StandardCharsets.UTF_8).trim());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during tar");
        }
    }
}
