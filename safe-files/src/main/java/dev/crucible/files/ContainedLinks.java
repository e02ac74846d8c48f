package dev.crucible.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a link inside a tree may be kept in a copy of that tree as a link: its target must be
 * relative, must not climb out through '..', and, when it exists, must resolve inside the tree through
 * every further link ({@link ContainedRoot}). A link to a missing file inside the tree (one a build
 * makes) is kept: it leads nowhere outside either way.
 */
public final class ContainedLinks {
    private ContainedLinks() {}

    /** Null when the link at {@code rel} under {@code root} stays inside it; else why it is refused. */
    public static String refusal(ContainedRoot root, String rel) throws IOException {
        Path target = Files.readSymbolicLink(root.root().resolve(rel));
        if (target.isAbsolute()) return "is a link to the absolute path " + target + "; a link kept in the tree must be relative and stay inside it";
        Path parent = Path.of(rel).getParent();
        Path lexical = (parent == null ? target : parent.resolve(target)).normalize();
        if (lexical.startsWith("..")) return "is a link to " + target + ", which leads out of the tree";
        try {
            root.resolve(rel, "link");
        } catch (UnsafePathException e) {
            if (e.getMessage().endsWith("goes through a dangling link")) return null;
            return "is a link to " + target + ", which " + e.getMessage().substring(e.getMessage().indexOf("' ") + 2);
        } catch (java.nio.file.NoSuchFileException e) {
            return null; // through a link to a file where a folder should be: leads nowhere
        }
        return null;
    }
}
