package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.rollout.PatchSpec;
import dev.crucible.files.ContainedRoot;
import dev.crucible.files.DiffPaths;
import dev.crucible.files.UnsafePathException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Applies a Rollout's {@code spec.patches} to a fresh workspace copy. The copy may carry links
 * (from the environment's workspace, or an agent's branch), so every path goes through
 * {@link ContainedRoot}: a patch whose path or diff goes through a link out of the workspace, a
 * dangling link, '..', an absolute path or a NUL is refused with {@code spec.patches[i].path} (or
 * {@code .diff}) named, and nothing is written.
 */
final class RolloutPatches {
    private RolloutPatches() {}

    static void apply(List<PatchSpec> patches, Path workspace) throws IOException, InterruptedException {
        if (patches == null) return;
        for (int i = 0; i < patches.size(); i++) apply(patches.get(i), workspace, "spec.patches[" + i + "]");
    }

    private static void apply(PatchSpec p, Path ws, String field) throws IOException, InterruptedException {
        ContainedRoot root = ContainedRoot.of(ws, "workspace");
        try {
            if (p.content != null) {
                root.write(p.path, p.content.getBytes(StandardCharsets.UTF_8), field + ".path");
                return;
            }
            DiffPaths.check(root, p.diff == null ? "" : p.diff, field + ".diff");
        } catch (UnsafePathException e) {
            throw new IOException(e.getMessage(), e);
        }
        Path diff = Files.createTempFile("crucible-patch-", ".diff");
        try {
            Files.writeString(diff, p.diff, StandardCharsets.UTF_8);
            // git apply refuses on its own to write beyond a symbolic link; DiffPaths made that a named refusal first
            Process proc = new ProcessBuilder(List.of("git", "apply", "--whitespace=nowarn", diff.toString()))
                    .directory(root.root().toFile()).redirectErrorStream(true).start();
            String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!proc.waitFor(60, TimeUnit.SECONDS) || proc.exitValue() != 0) {
                throw new IOException(field + ".diff: does not apply: " + out.strip());
            }
        } finally {
            Files.deleteIfExists(diff);
        }
    }
}
