package dev.crucible.api.validation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * Which local folders may be a rollout's {@code spec.workspace.path}. The agent gets a copy of it, so it
 * must hold the task's files and nothing the grader keeps from the agent. Refused: the filesystem root;
 * the root of the git checkout that holds the manifest (its history, other branches, manifests); a folder
 * holding the manifest itself or the hidden tests; and the output folder or any folder above it (the copy
 * would copy itself, 557 levels deep for {@code .}).
 */
public final class WorkspacePathRules {
    private WorkspacePathRules() {}

    /**
     * Why {@code workspace} is refused, or null when it is fine.
     *
     * @param manifest  the manifest file that names it
     * @param outputDir the output folder of the run (null: not known)
     * @param hidden    hidden tests (folder and/or patch), resolved
     */
    public static String refusal(Path workspace, Path manifest, Path outputDir, List<Path> hidden) {
        Path ws = real(workspace);
        if (ws.getParent() == null) return "is the filesystem root " + ws + "; point it at the folder with the task's files";
        Path manifestDir = real(manifest.toAbsolutePath().getParent());
        Path checkout = checkoutRoot(manifestDir);
        if (checkout != null && checkout.startsWith(ws)) {
            return (checkout.equals(ws) ? "is the root" : "holds the root") + " of the git checkout " + checkout
                    + " that holds this manifest (its history, other branches and manifests would be the agent's);"
                    + " point it at the folder with the task's files";
        }
        if (manifestDir.startsWith(ws)) {
            return "holds this manifest (" + manifest.getFileName() + ") and the folder beside it; point it at a subfolder with the task's files";
        }
        for (Path h : hidden) {
            if (real(h).startsWith(ws)) return "holds the hidden tests (" + h + "), which the agent must never see";
        }
        if (outputDir != null && real(outputDir).startsWith(ws)) {
            return "holds the output folder " + outputDir + ", so the copy would copy itself; choose --out outside " + ws;
        }
        return null;
    }

    /** The top of the git working tree holding {@code dir} (a folder with a .git entry), or null. */
    static Path checkoutRoot(Path dir) {
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve(".git"), LinkOption.NOFOLLOW_LINKS)) return p;
        }
        return null;
    }

    /** The real path of the nearest existing ancestor, with the rest appended (the output folder may not exist yet). */
    static Path real(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path existing = abs;
        while (existing != null && !Files.exists(existing)) existing = existing.getParent();
        if (existing == null) return abs;
        try {
            return existing.toRealPath().resolve(existing.relativize(abs)).normalize();
        } catch (IOException e) {
            return abs;
        }
    }
}
