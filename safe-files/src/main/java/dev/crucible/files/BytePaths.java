package dev.crucible.files;

import java.nio.file.Path;

/**
 * A relative path from a listing, put under another root with its names' bytes intact (issue 34, blind host round 5,
 * B2). A name that is not valid UTF-8 has no string that names it again: {@code root.resolve(rel.toString())} encodes
 * each U+FFFD the JVM decoded as three bytes, so a copy named that way opens another name, or, for a 255-byte name,
 * one too long for the file system (ENAMETOOLONG failed the whole grading tree: "could not prepare grading").
 */
public final class BytePaths {
    private BytePaths() {}

    /** {@code rel} under {@code root}: by its bytes when both are of one file system, by its text otherwise. */
    public static Path under(Path root, Path rel) {
        return rel.getFileSystem() == root.getFileSystem() ? root.resolve(rel) : root.resolve(rel.toString());
    }
}
