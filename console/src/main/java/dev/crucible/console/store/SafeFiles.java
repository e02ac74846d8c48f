package dev.crucible.console.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Reads of the files in a RUNS folder. They are written by Crucible outside the agent's box, but they hold the agent's
 * text and the folder may be anyone's copy: a link is never followed, only a regular file is opened (never a FIFO or a
 * device, which would block the server), and at most a bound of bytes is read.
 */
public final class SafeFiles {
    private SafeFiles() {}

    /** The file's first {@code max} bytes; throws naming the file when it is not a regular file. */
    public static byte[] read(Path file, int max) throws IOException {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) throw new java.nio.file.NoSuchFileException(file + " does not exist");
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(file + " is not a regular file" + (Files.isSymbolicLink(file) ? " (a symbolic link, not followed)" : ""));
        }
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            return in.readNBytes(max);
        }
    }

    public static boolean isDirectory(Path p) {
        return Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
    }
}
