package dev.crucible.verifier.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Resolves tool paths inside the workspace; links and ".." that leave it are refused. */
final class WorkspacePaths {
    private WorkspacePaths() {}

    static Path resolve(Path workspace, String path) {
        if (path == null || path.isBlank()) throw new BadToolCallException("args.path: required");
        try {
            Path root = workspace.toRealPath();
            Path p = Path.of(path);
            Path abs = (p.isAbsolute() ? p : root.resolve(p)).normalize();
            // The deepest existing ancestor decides: a link inside the workspace may point anywhere.
            Path existing = abs;
            while (existing != null && !Files.exists(existing)) existing = existing.getParent();
            Path real = existing == null ? abs : existing.toRealPath().resolve(existing.relativize(abs));
            if (!real.normalize().startsWith(root)) throw new BadToolCallException("args.path: '" + path + "' is outside the workspace");
            return real.normalize();
        } catch (IOException e) {
            throw new BadToolCallException("args.path: " + e.getMessage());
        }
    }
}
