package dev.crucible.cli.run;

import dev.crucible.verifier.config.EnvironmentSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Materialises {@code spec.source} (a local git repository at a commit) as a fresh directory.
 * {@code git archive} rather than a clone or worktree: the agent gets the files of that commit, made a
 * fresh one-commit repository ({@link TaskRepository}), so it cannot mine later commits or other
 * branches for the fix (a known reward hack). {@code history: ancestors} keeps the commit's ancestry,
 * still nothing beyond it.
 */
final class SourceCheckout {
    private SourceCheckout() {}

    static boolean isRemote(String repo) {
        return repo.contains("://") || repo.startsWith("git@") || repo.matches("^[\\w.-]+@[\\w.-]+:.*");
    }

    /** Extracts {@code commit} into {@code into} as the agent's task repository; returns the task commit id. */
    static String checkout(Path repo, String commit, String history, Path into) throws IOException, InterruptedException {
        extract(repo, commit, into);
        boolean ancestors = EnvironmentSpec.Source.ANCESTORS.equals(history);
        String task = ancestors ? TaskRepository.ancestry(repo, commit, into) : TaskRepository.commitTree(into, true);
        TaskRepository.carryVersionTag(repo, commit, into, ancestors);
        return task;
    }

    /** Extracts {@code commit} of {@code repo} into {@code into} (created); throws with git's message on failure. */
    static void extract(Path repo, String commit, Path into) throws IOException, InterruptedException {
        Files.createDirectories(into);
        Path err = Files.createTempFile("crucible-git-", ".log");
        try {
            Process p = new ProcessBuilder(List.of("/bin/bash", "-c",
                    "set -euo pipefail; git -C \"$1\" archive --format=tar \"$2^{commit}\" | tar -x -C \"$3\"",
                    "crucible-source", repo.toString(), commit, into.toString()))
                    .redirectErrorStream(false).redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("git archive of " + repo + " at " + commit + " took longer than 300 s");
            }
            if (p.exitValue() != 0) {
                throw new IOException("git archive of " + repo + " at " + commit + " failed: "
                        + Files.readString(err, StandardCharsets.UTF_8).strip());
            }
        } finally {
            Files.deleteIfExists(err);
        }
    }
}
