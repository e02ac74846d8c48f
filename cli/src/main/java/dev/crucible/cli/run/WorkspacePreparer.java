package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.validation.WorkspacePathRules;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.cli.run.RunInputs.EnvironmentDoc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Makes a fresh workspace for one attempt: a one-commit task repository of the local workspace or of the
 * source commit (nothing of any other commit, branch or remote), then the rollout's patches.
 */
final class WorkspacePreparer {
    private WorkspacePreparer() {}

    /**
     * Returns the workspace directory (inside {@link AttemptDir#sandbox()}): a fresh task repository
     * ({@link TaskRepository}) of the local workspace's files or of the source commit, then the rollout's
     * patches on top (uncommitted, as the agent's starting point).
     */
    static Path prepare(EnvironmentDoc env, RolloutSpec rollout, AttemptDir dir) throws IOException, InterruptedException {
        RLEnvironmentSpec s = env.spec();
        Files.createDirectories(dir.sandbox());
        Path ws;
        if (s.workspace != null && s.workspace.path != null) {
            Path original = env.baseDir().resolve(s.workspace.path).normalize();
            List<Path> hidden = new java.util.ArrayList<>();
            env.verifierEnv().hiddenTestsDir().ifPresent(hidden::add);
            env.verifierEnv().hiddenTestsPatch().ifPresent(hidden::add);
            String refused = WorkspacePathRules.refusal(original, env.file(), dir.root(), hidden);
            if (refused != null) throw new IOException(env.file() + ": spec.workspace.path: " + refused);
            boolean besideManifest = original.getParent() != null && original.getParent().equals(env.baseDir())
                    && !original.equals(env.baseDir());
            ws = dir.sandbox().resolve(besideManifest ? original.getFileName().toString() : "workspace");
            WorkspaceCopy.copy(original, ws, List.of(dir.root()));
            TaskRepository.commitTree(ws, false);
            if (Files.exists(original.resolve(".git"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                // a repository's own work tree (derive writes its path): its version tag, as a source checkout carries it
                String at = s.source != null && s.source.commit != null ? s.source.commit : "HEAD";
                TaskRepository.carryVersionTag(original, at, ws, false);
            }
            if (besideManifest) linkSiblings(env, original, dir);
        } else {
            ws = dir.sandbox().resolve("workspace");
            SourceCheckout.checkout(env.baseDir().resolve(s.source.repo).normalize(), s.source.commit, s.source.history, ws);
        }
        RolloutPatches.apply(rollout.patches, ws);
        return ws;
    }

    /**
     * Links the manifest directory's other entries beside the copy (read-only in the sandbox, as everything
     * outside the workspace), so a command like {@code sh ../agents/honest.sh} works; never the output
     * folder, nor an entry that is or holds the hidden tests.
     */
    private static void linkSiblings(EnvironmentDoc env, Path original, AttemptDir dir) throws IOException {
        Path baseDir = env.baseDir();
        Path sandbox = dir.sandbox();
        List<Path> hidden = new java.util.ArrayList<>();
        env.verifierEnv().hiddenTestsDir().ifPresent(hidden::add);
        env.verifierEnv().hiddenTestsPatch().ifPresent(hidden::add);
        try (Stream<Path> entries = Files.list(baseDir)) {
            for (Path e : entries.toList()) {
                Path abs = e.toAbsolutePath().normalize();
                if (e.equals(original) || dir.root().toAbsolutePath().normalize().startsWith(abs)) continue; // not --out itself
                if (hidden.stream().anyMatch(h -> h.toAbsolutePath().normalize().startsWith(abs))) continue; // never the hidden tests
                Path link = sandbox.resolve(e.getFileName().toString());
                if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) Files.createSymbolicLink(link, abs);
            }
        }
    }
}
