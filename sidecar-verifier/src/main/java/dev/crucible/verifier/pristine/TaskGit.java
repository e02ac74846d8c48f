package dev.crucible.verifier.pristine;

import dev.crucible.files.TreeCopier;
import dev.crucible.files.TreeDelete;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The task repository's {@code .git} as it was before the agent ran, put into each grading tree. CI grades a checkout
 * with git metadata, and build scripts read it: fzf's Makefile stops with "Not on git repository; cannot determine
 * $FZF_VERSION" before its tests when {@code git describe} finds nothing, and the grading tree had no {@code .git}.
 * The copy is taken at reset, after setup and before any agent process, from the repository the runtime made (one
 * commit, or the task commit's ancestry, with the version tag behind it); the agent's own {@code .git} (hooks, a
 * config with {@code core.fsmonitor}, rewritten refs) never reaches grading: {@link WorkspaceWalker} skips it and
 * each grading gets a fresh copy of this one. It holds nothing the agent's workspace did not already hold. A
 * {@code .git} that is a link or a file (a worktree's "gitdir:") is not taken.
 */
public final class TaskGit {
    private TaskGit() {}

    /** Copies {@code source}/.git into {@code dir}; null when there is none to take or the copy fails. */
    public static Path snapshot(Path source, Path dir) {
        Path git = source.resolve(".git");
        if (!Files.isDirectory(git, LinkOption.NOFOLLOW_LINKS)) return null;
        try {
            TreeDelete.delete(dir);
            copy(git, dir);
            return dir;
        } catch (IOException | RuntimeException e) {
            return null; // grading goes on without git metadata, as before
        }
    }

    /** Puts a fresh copy of {@code snapshot} at {@code gradeRoot}/.git (nothing when {@code snapshot} is null). */
    public static void into(Path snapshot, Path gradeRoot) {
        if (snapshot == null || !Files.isDirectory(snapshot, LinkOption.NOFOLLOW_LINKS)) return;
        Path dst = gradeRoot.resolve(".git");
        try {
            if (Files.exists(dst, LinkOption.NOFOLLOW_LINKS)) TreeDelete.delete(dst);
            copy(snapshot, dst);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sparse files stay sparse, links are copied as links, FIFOs, sockets and devices are left out (safe-files). */
    private static void copy(Path src, Path dst) throws IOException {
        TreeCopier.copy(src.toAbsolutePath().normalize(), dst.toAbsolutePath().normalize(), TreeCopier.Options.of(TreeCopier.Links.AS_IS));
    }
}
