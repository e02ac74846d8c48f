package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.cli.run.RunInputs.EnvironmentDoc;
import dev.crucible.verifier.TreeCopy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Makes a fresh workspace for one attempt: a copy of the local workspace or the source commit, then the rollout's patches. */
final class WorkspacePreparer {
    private WorkspacePreparer() {}

    /** Returns the workspace directory (inside {@link AttemptDir#sandbox()}). */
    static Path prepare(EnvironmentDoc env, RolloutSpec rollout, AttemptDir dir) throws IOException, InterruptedException {
        RLEnvironmentSpec s = env.spec();
        Files.createDirectories(dir.sandbox());
        Path ws;
        if (s.workspace != null && s.workspace.path != null) {
            Path original = env.baseDir().resolve(s.workspace.path).normalize();
            boolean besideManifest = original.getParent() != null && original.getParent().equals(env.baseDir())
                    && !original.equals(env.baseDir());
            ws = dir.sandbox().resolve(besideManifest ? original.getFileName().toString() : "workspace");
            TreeCopy.copy(original, ws);
            if (besideManifest) linkSiblings(env.baseDir(), original, dir);
        } else {
            ws = dir.sandbox().resolve("workspace");
            SourceCheckout.extract(env.baseDir().resolve(s.source.repo).normalize(), s.source.commit, ws);
        }
        RolloutPatches.apply(rollout.patches, ws);
        return ws;
    }

    /** Links the manifest directory's other entries beside the copy (read-only in the sandbox, as everything outside the workspace). */
    private static void linkSiblings(Path baseDir, Path original, AttemptDir dir) throws IOException {
        Path sandbox = dir.sandbox();
        try (Stream<Path> entries = Files.list(baseDir)) {
            for (Path e : entries.toList()) {
                if (e.equals(original) || dir.root().toAbsolutePath().startsWith(e.toAbsolutePath())) continue; // not --out itself
                Path link = sandbox.resolve(e.getFileName().toString());
                if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) Files.createSymbolicLink(link, e.toAbsolutePath());
            }
        }
    }
}
