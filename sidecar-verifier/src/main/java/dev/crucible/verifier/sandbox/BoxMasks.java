package dev.crucible.verifier.sandbox;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The bubblewrap arguments that hide a {@link BoxSpec#masks()} path: a file gets /dev/null bound read-only over it
 * (it reads as empty, writes fail), a folder an empty read-only tmpfs. {@link Box} puts them after every bind and
 * before the box's root is made read-only, so a mask inside a bound folder lands on top of that bind.
 */
final class BoxMasks {
    /** An empty folder needs no room; a small size keeps it from ever becoming a place to write. */
    private static final String EMPTY_TMPFS_BYTES = "4096";

    private BoxMasks() {}

    static List<String> args(List<Path> masks) {
        List<String> out = new ArrayList<>();
        for (Path m : masks) {
            String at = m.toString();
            if (Files.isDirectory(m, LinkOption.NOFOLLOW_LINKS)) {
                out.addAll(List.of("--perms", "0555", "--size", EMPTY_TMPFS_BYTES, "--tmpfs", at, "--remount-ro", at));
            } else if (Files.exists(m, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(m)) {
                // a link is left alone: bwrap would mount over what it names, not over the link
                out.addAll(List.of("--ro-bind", "/dev/null", at));
            }
        }
        return out;
    }
}
