package dev.crucible.cli.run;

import dev.crucible.files.CopyStats;
import dev.crucible.files.TreeCopier;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies {@code spec.workspace.path} for one attempt. Links are copied as links and never followed;
 * every {@code .git} (the folder's own history, nested repositories, a gitdir link file) is left out,
 * since the agent gets a fresh task repository instead; sparse files stay sparse; FIFOs, sockets and
 * devices are left out and listed, never opened; and the copy never descends into the folders in
 * {@code exclude} (the output folder, the copy itself), so it cannot recurse into itself.
 */
final class WorkspaceCopy {
    private WorkspaceCopy() {}

    /** Returns what was copied, what was left out and why, and the host disk the copy took. */
    static CopyStats copy(Path src, Path dst, List<Path> exclude) throws IOException {
        Path from = src.toAbsolutePath().normalize();
        List<Path> skip = new ArrayList<>(exclude.stream().map(p -> p.toAbsolutePath().normalize()).toList());
        TreeCopier.Options opt = TreeCopier.Options.of(TreeCopier.Links.AS_IS)
                .skipping(d -> d.getFileName().toString().equals(".git") || skip.contains(from.resolve(d)))
                .skippingFiles(f -> f.getFileName().toString().equals(".git"));
        return TreeCopier.copy(from, dst, opt);
    }
}
