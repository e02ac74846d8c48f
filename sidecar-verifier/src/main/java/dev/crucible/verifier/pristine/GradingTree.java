package dev.crucible.verifier.pristine;

import dev.crucible.files.BytePaths;
import dev.crucible.files.ContainedRoot;
import dev.crucible.files.CopyStats;
import dev.crucible.files.DeepPaths;
import dev.crucible.files.FileKinds;
import dev.crucible.files.TreeCopier;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.LocalExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the directory grading runs in: the agent's non-test files, then every pristine protected
 * file on top, then hidden tests. Agent-made test config, conftest files, start-up hooks
 * (sitecustomize, usercustomize, .pth), byte code and tagged build caches (cargo's target/, see
 * {@link WorkspaceWalker}) are left out.
 *
 * <p>Links stay links, as git checks them out for CI, when they stay inside the tree (a relative target,
 * through links that stay inside too, see {@link dev.crucible.files.ContainedLinks}); a link that leads
 * out, a FIFO, socket or device is left out with the reason. Sparse files stay sparse, and the host disk
 * the tree takes is in {@link Built#copied}, for the attempt's disk limit.
 */
public final class GradingTree {
    /**
     * Caches runners keep at the tree's top (pytest's cacheprovider, which warns, or fails under
     * {@code -W error}, where it cannot write). The grading box mounts each empty and writable for every
     * command, on a tmpfs: the code stays read-only, nothing the run caches is kept, and none of it ever
     * reaches the workspace. Caches inside node_modules are {@link SetupDependencies#SCRATCH}; Go's and
     * cargo's live in the results folder (GOCACHE, CARGO_TARGET_DIR), fresh for each grading.
     */
    public static final List<String> RUNNER_CACHES = List.of(".pytest_cache");

    private GradingTree() {}

    /**
     * The {@link #RUNNER_CACHES} of a grading tree, made as empty folders for the box to mount over (the agent's
     * own are never copied: {@link WorkspaceWalker} skips them); none when the tree is not there yet.
     */
    public static List<Path> runnerCaches(Path gradeRoot) {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(gradeRoot, LinkOption.NOFOLLOW_LINKS)) return out;
        for (String c : RUNNER_CACHES) {
            Path d = gradeRoot.resolve(c);
            try {
                if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(d); // a file or link the tree got there is not a mount point
                    Files.createDirectory(d);
                }
                out.add(d);
            } catch (IOException e) {
                // the runner warns as it would have without; grading goes on
            }
        }
        return out;
    }

    /**
     * What was left out, for the report: paths, and "path: reason" for links that lead out of the tree and
     * special files. {@code copied}: what the copies took, measured on {@code root} once built.
     */
    public record Built(Path root, List<String> dropped, CopyStats copied) {}

    public static Built build(Path workspace, PristineSnapshot pristine, Path gradeRoot, Path hiddenDir, Path hiddenPatch) {
        List<String> dropped = new ArrayList<>();
        ProtectedPaths pp = pristine.protectedPaths();
        CopyStats stats = new CopyStats();
        ContainedRoot ws;
        try {
            Files.createDirectories(gradeRoot);
            ws = ContainedRoot.of(workspace, "workspace");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        WorkspaceWalker.walk(workspace, (rel, attrs) -> {
            String r = rel.toString();
            if (pp.isProtected(rel) || pp.isStartupHook(rel) || r.endsWith(".pyc")) {
                if (!pristine.keeps(r) && !pristine.refusedLinks().containsKey(r)) dropped.add(r); // a refused link: listed with its reason below
                return;
            }
            int before = stats.skipped().size();
            // by the listed name's bytes: its text names another file when it is not UTF-8 (BytePaths)
            Path src = BytePaths.under(workspace, rel), dst = BytePaths.under(gradeRoot, rel);
            try {
                Files.createDirectories(dst.getParent());
                boolean ok = attrs.isSymbolicLink() ? TreeCopier.copyLink(ws, r, src, dst, stats) : TreeCopier.copyFile(r, src, dst, false, stats);
                if (ok && !attrs.isSymbolicLink()) dst.toFile().setWritable(true);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            stats.skipped().subList(before, stats.skipped().size()).forEach(s -> dropped.add(s.toString()));
        }, true, rel -> {
            if (DeepPaths.tooDeep(rel)) {
                stats.skip(DeepPaths.describe(rel.toString()), DeepPaths.REASON);
                dropped.add(DeepPaths.line(rel.toString()));
                return;
            }
            String why = FileKinds.specialReason(workspace.resolve(rel));
            stats.skip(rel.toString(), why);
            dropped.add(rel + ": " + why);
        });
        pristine.refusedLinks().forEach((r, why) -> dropped.add(r + ": " + why));
        for (String r : pristine.hashes().keySet()) copy(pristine.dir(), r, gradeRoot, dropped, stats);
        for (String r : pristine.links().keySet()) copy(pristine.dir(), r, gradeRoot, dropped, stats);
        if (hiddenDir != null) {
            WorkspaceWalker.walk(hiddenDir, (rel, attrs) -> copy(hiddenDir, rel.toString(), gradeRoot, dropped, stats));
        }
        if (hiddenPatch != null) applyPatch(gradeRoot, hiddenPatch);
        return new Built(gradeRoot, dropped, stats.measure(gradeRoot));
    }

    private static void applyPatch(Path root, Path patch) {
        ExecRequest req = new ExecRequest(List.of("patch", "-p1", "--batch", "--forward", "-i", patch.toAbsolutePath().toString()),
                root, Map.of(), false, Duration.ofSeconds(60), 16_384, null, true);
        ExecResult r = new LocalExecutor().run(req);
        if (!r.ok()) throw new IllegalStateException("hidden test patch " + patch + " did not apply: " + r.stdout());
    }

    /**
     * Copies the grader's file or link {@code rel} from {@code from} into the tree, over what the agent's copy put
     * there. Its folders must be folders: a link the agent left where one is (tests -> elsewhere) would send the
     * grader's file through it, so it is replaced by a real folder and listed.
     */
    private static void copy(Path from, String rel, Path gradeRoot, List<String> dropped, CopyStats stats) {
        Path src = from.resolve(rel);
        Path dst = gradeRoot.resolve(rel);
        try {
            Path cur = gradeRoot;
            Path parent = Path.of(rel).getParent();
            for (int i = 0; parent != null && i < parent.getNameCount(); i++) {
                cur = cur.resolve(parent.getName(i).toString());
                if (Files.isSymbolicLink(cur)) {
                    Files.delete(cur);
                    dropped.add(gradeRoot.relativize(cur) + ": a link where the grader's files need a folder; replaced by the folder");
                }
                if (!Files.isDirectory(cur, LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(cur);
                    Files.createDirectory(cur);
                }
            }
            if (Files.isDirectory(dst, LinkOption.NOFOLLOW_LINKS)) { // the agent made a folder where the grader's file goes
                dev.crucible.files.TreeDelete.delete(dst);
                dropped.add(rel + ": a folder where the grader's file goes; replaced by the file");
            }
            boolean ok = Files.isSymbolicLink(src) ? TreeCopier.copyLink(null, rel, src, dst, stats) : TreeCopier.copyFile(rel, src, dst, false, stats);
            if (ok && !Files.isSymbolicLink(dst)) dst.toFile().setWritable(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
