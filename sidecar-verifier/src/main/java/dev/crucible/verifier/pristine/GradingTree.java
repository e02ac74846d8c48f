package dev.crucible.verifier.pristine;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.LocalExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the directory grading runs in: the agent's non-test files, then every pristine protected
 * file on top, then hidden tests. Agent-made test config, conftest files, start-up hooks
 * (sitecustomize, usercustomize, .pth), byte code, links leaving the workspace and tagged build caches
 * (cargo's target/, see {@link WorkspaceWalker}) are left out.
 */
public final class GradingTree {
    private GradingTree() {}

    /** What was left out, for the report. */
    public record Built(Path root, List<String> dropped) {}

    public static Built build(Path workspace, PristineSnapshot pristine, Path gradeRoot, Path hiddenDir, Path hiddenPatch) {
        List<String> dropped = new ArrayList<>();
        ProtectedPaths pp = pristine.protectedPaths();
        Path wsReal;
        try {
            Files.createDirectories(gradeRoot);
            wsReal = workspace.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        WorkspaceWalker.walk(workspace, (rel, attrs) -> {
            String r = rel.toString();
            if (pp.isProtected(rel) || pp.isStartupHook(rel) || r.endsWith(".pyc")) {
                if (!pristine.contains(r)) dropped.add(r);
                return;
            }
            Path src = workspace.resolve(rel);
            if (attrs.isSymbolicLink()) {
                try {
                    Path real = src.toRealPath();
                    if (!real.startsWith(wsReal) || !Files.isRegularFile(real)) {
                        dropped.add(r);
                        return;
                    }
                    src = real;
                } catch (IOException e) {
                    dropped.add(r);
                    return;
                }
            }
            copy(src, gradeRoot.resolve(r));
        }, true);
        for (String r : pristine.hashes().keySet()) copy(pristine.dir().resolve(r), gradeRoot.resolve(r));
        if (hiddenDir != null) {
            WorkspaceWalker.walk(hiddenDir, (rel, attrs) -> copy(hiddenDir.resolve(rel), gradeRoot.resolve(rel.toString())));
        }
        if (hiddenPatch != null) applyPatch(gradeRoot, hiddenPatch);
        return new Built(gradeRoot, dropped);
    }

    private static void applyPatch(Path root, Path patch) {
        ExecRequest req = new ExecRequest(List.of("patch", "-p1", "--batch", "--forward", "-i", patch.toAbsolutePath().toString()),
                root, Map.of(), false, Duration.ofSeconds(60), 16_384, null, true);
        ExecResult r = new LocalExecutor().run(req);
        if (!r.ok()) throw new IllegalStateException("hidden test patch " + patch + " did not apply: " + r.stdout());
    }

    private static void copy(Path src, Path dst) {
        try {
            Files.createDirectories(dst.getParent());
            Files.copy(src, dst, StandardCopyOption.REPLACE_EXISTING, LinkOption.NOFOLLOW_LINKS);
            dst.toFile().setWritable(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
