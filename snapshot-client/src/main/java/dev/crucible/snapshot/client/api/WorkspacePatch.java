package dev.crucible.snapshot.client.api;

import dev.crucible.files.ContainedRoot;
import dev.crucible.files.DiffPaths;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One change to a restored workspace: a file's new content, or a unified diff. The workspace came
 * from a snapshot of what an agent wrote, so it may hold links planted to redirect a patch (a
 * {@code notes -> /elsewhere} and a patch for {@code notes/hint.txt}): every path is resolved with
 * {@link ContainedRoot}, which refuses a link out of the workspace or a dangling one, and the file
 * is opened without following its final component. A diff's files are checked the same way before
 * {@code patch} runs. A patch that is refused or does not apply fails the restore before any
 * process resumes.
 *
 * @param path    file relative to the workspace, replaced by {@code content}
 * @param content the file's new content
 * @param diff    a unified diff applied with {@code patch -p1} in the workspace
 */
public record WorkspacePatch(String path, String content, String diff) {

    /** Applies {@code patches} in order; the error names the patch by its index under {@code patches}. */
    public static void applyAll(List<WorkspacePatch> patches, Path workspace) {
        applyAll(patches, workspace, "patches");
    }

    /** {@code field}: what the caller's input calls the list ({@code spec.patches} for a Rollout). */
    public static void applyAll(List<WorkspacePatch> patches, Path workspace, String field) {
        for (int i = 0; i < patches.size(); i++) {
            patches.get(i).apply(workspace, field + "[" + i + "]");
        }
    }

    void apply(Path workspace, String field) {
        if ((diff == null) == (content == null)) {
            throw new IllegalArgumentException(field + ": give exactly one of diff or content");
        }
        try {
            ContainedRoot root = ContainedRoot.of(workspace, "workspace");
            if (content != null) {
                root.write(path, content.getBytes(StandardCharsets.UTF_8), field + ".path");
                return;
            }
            DiffPaths.check(root, diff, field + ".diff");
            Process p = new ProcessBuilder("patch", "-p1", "--batch", "--forward", "--silent")
                    .directory(root.root().toFile()).redirectErrorStream(true).start();
            try (var in = p.getOutputStream()) {
                in.write(diff.getBytes(StandardCharsets.UTF_8));
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalArgumentException(field + ".diff: does not apply: " + out.strip());
            }
        } catch (IOException e) {
            throw new IllegalStateException(field + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(field + ": " + "interrupted", e);
        }
    }
}
