package dev.crucible.snapshot.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Resolves a relative name against a base directory and proves the result stays inside it,
 * both lexically (no '..' escape, no absolute path) and physically (the deepest existing
 * ancestor's real path, symlinks followed, is still under the base's real path).
 */
public final class ContainedPaths {

    private ContainedPaths() {
    }

    public static Path resolve(Path base, String relative, String what) {
        if (relative == null || relative.isEmpty() || relative.indexOf('\0') >= 0) {
            throw new PathEscapeException(what, String.valueOf(relative), base);
        }
        Path rel = base.getFileSystem().getPath(relative);
        if (rel.isAbsolute()) {
            throw new PathEscapeException(what, relative, base);
        }
        Path normalizedBase = base.toAbsolutePath().normalize();
        Path candidate = normalizedBase.resolve(rel).normalize();
        if (!candidate.startsWith(normalizedBase) || candidate.equals(normalizedBase)) {
            throw new PathEscapeException(what, relative, base);
        }
        requirePhysicallyInside(normalizedBase, candidate, what, relative);
        return candidate;
    }

    /** Checks an already absolute path (e.g. a caller-given workspace) against an allowed root. */
    public static Path requireInside(Path root, Path given, String what) {
        Path normalizedRoot = root.toAbsolutePath().normalize();
        Path candidate = given.toAbsolutePath().normalize();
        if (!candidate.startsWith(normalizedRoot)) {
            throw new PathEscapeException(what, given.toString(), root);
        }
        requirePhysicallyInside(normalizedRoot, candidate, what, given.toString());
        return candidate;
    }

    private static void requirePhysicallyInside(Path base, Path candidate, String what, String given) {
        try {
            Path realBase = base.toRealPath();
            Path existing = candidate;
            while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
                existing = existing.getParent();
            }
            if (existing == null) {
                throw new PathEscapeException(what, given, base);
            }
            Path real = existing.toRealPath();
            if (!real.startsWith(realBase)) {
                throw new PathEscapeException(what, given, base);
            }
        } catch (IOException e) {
            // e.g. a dangling symlink: containment cannot be proven, so the path is refused.
            throw new PathEscapeException(what, given, base);
        }
    }
}
