package dev.crucible.files;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Folders an agent nested too deep for host code to name (issue 34). {@code mkdir -p} from inside a tree makes one
 * past PATH_MAX (4096 bytes) with no path ever that long; host code names files by path, so a copy or a restore of it
 * fails with ENAMETOOLONG, and that failure once ended the whole run. A walk that meets a folder whose path relative to
 * the root is past {@link #MAX_RELATIVE} skips it and everything under it, and lists it by {@link #describe}: under that
 * bound every entry in the folder (a name is at most 255 bytes) still has a path, from a root of up to 768 bytes,
 * that the host can name, in the source and in any copy.
 */
public final class DeepPaths {
    /** The longest relative path of a folder a walk goes into, in bytes. */
    public static final int MAX_RELATIVE = 3072;
    /** The reason a skipped folder is listed with. */
    public static final String REASON = "nested past what host code can name (PATH_MAX): this folder and everything under it are neither read nor copied";
    private static final int SHOWN = 96;

    private DeepPaths() {}

    /** Whether the folder at {@code rel} (relative to the walk's root) is too deep to go into. */
    public static boolean tooDeep(Path rel) {
        return tooDeep(rel.toString());
    }

    public static boolean tooDeep(String rel) {
        return rel.length() > MAX_RELATIVE / 4 && rel.getBytes(StandardCharsets.UTF_8).length > MAX_RELATIVE;
    }

    /** The skipped folder for a report: its first {@value #SHOWN} characters (the prefix that names it), its length and depth. */
    public static String describe(String rel) {
        int levels = rel.split("/", -1).length;
        return rel.substring(0, Math.min(SHOWN, rel.length())) + "… (" + rel.getBytes(StandardCharsets.UTF_8).length + " bytes, "
                + levels + " levels deep)";
    }

    /** One line for a list of what was left out: {@code PREFIX… (N bytes, M levels deep): REASON}. */
    public static String line(String rel) {
        return describe(rel) + ": " + REASON;
    }
}
