package dev.crucible.snapshot.disk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One change to a restored workspace: a file's new content, or a unified diff. Paths stay inside
 * the workspace; a diff that does not apply fails the restore before any process resumes.
 *
 * @param path    file relative to the workspace, replaced by {@code content}
 * @param content the file's new content
 * @param diff    a unified diff applied with {@code patch -p1} in the workspace
 */
public record WorkspacePatch(String path, String content, String diff) {

    /** Applies {@code patches} in order; the error names the patch by its index. */
    public static void applyAll(List<WorkspacePatch> patches, Path workspace) {
        for (int i = 0; i < patches.size(); i++) {
            patches.get(i).apply(workspace, "patches[" + i + "]");
        }
    }

    void apply(Path workspace, String field) {
        if ((diff == null) == (content == null)) {
            throw new IllegalArgumentException(field + ": give exactly one of diff or content");
        }
        try {
            if (content != null) {
                if (path == null || path.isBlank()) {
                    throw new IllegalArgumentException(field + ".path: content needs a path");
                }
                Path target = workspace.resolve(path).normalize();
                if (!target.startsWith(workspace.normalize()) || Path.of(path).isAbsolute()) {
                    throw new IllegalArgumentException(field + ".path: '" + path + "' leaves the workspace");
                }
                Files.createDirectories(target.getParent());
                Files.writeString(target, content, StandardCharsets.UTF_8);
                return;
            }
            Process p = new ProcessBuilder("patch", "-p1", "--batch", "--forward", "--silent")
                    .directory(workspace.toFile()).redirectErrorStream(true).start();
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
            throw new IllegalStateException(field + ": interrupted", e);
        }
    }
}
