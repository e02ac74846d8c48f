package dev.crucible.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** What kind of entry a path is, from lstat's mode: for the reason a copy gives when it leaves one out. */
public final class FileKinds {
    private FileKinds() {}

    /** "a FIFO", "a socket", "a character device", "a block device", "a link", "a folder", "a regular file". */
    public static String of(Path p) {
        try {
            int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return switch (mode & 0170000) {
                case 0010000 -> "a FIFO";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0140000 -> "a socket";
                case 0120000 -> "a link";
                case 0040000 -> "a folder";
                case 0100000 -> "a regular file";
                default -> "a special file";
            };
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "a special file";
        }
    }

    /** The reason a FIFO, socket or device is left out of a copy: it is never opened. */
    public static String specialReason(Path p) {
        return "is " + of(p) + "; not copied (a copy never opens one: a FIFO would block it, a device could be endless)";
    }
}
