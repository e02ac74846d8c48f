package dev.crucible.files;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Checks every file a unified or git diff touches (applied with one leading component stripped, as
 * {@code patch -p1} and {@code git apply} do) against a {@link ContainedRoot} before the patch tool
 * runs: a name that is absolute, climbs out with '..', has a NUL, or goes through a link out of the
 * root or a dangling one is refused, and so is a diff that would create a link (a later hunk could
 * then write through it). The tools have their own link checks; this makes the refusal one line
 * that names the field, and holds whatever tool version is installed.
 */
public final class DiffPaths {
    private DiffPaths() {}

    /** Returns the workspace-relative paths the diff touches. */
    public static Set<String> check(ContainedRoot root, String diff, String field) throws IOException {
        if (diff.indexOf('\0') >= 0) throw new UnsafePathException(field, "", "contains a NUL byte");
        Set<String> paths = new LinkedHashSet<>();
        for (String line : diff.split("\n", -1)) {
            String l = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            if (l.startsWith("--- ") || l.startsWith("+++ ")) {
                add(paths, stripOne(name(l.substring(4), field), field), field);
            } else if (l.startsWith("diff --git ")) {
                String rest = l.substring("diff --git ".length());
                int b = rest.lastIndexOf(" b/");
                if (b > 0) {
                    add(paths, stripOne(name(rest.substring(0, b), field), field), field);
                    add(paths, stripOne(name(rest.substring(b + 1), field), field), field);
                }
            } else if (l.startsWith("rename from ") || l.startsWith("rename to ") || l.startsWith("copy from ") || l.startsWith("copy to ")) {
                add(paths, name(l.substring(l.indexOf(' ', l.indexOf(' ') + 1) + 1), field), field);
            } else if (l.startsWith("new file mode 120000") || l.startsWith("new mode 120000")) {
                throw new UnsafePathException(field, l, "would create a symbolic link; patches may not add links");
            }
        }
        for (String p : paths) {
            try {
                root.resolve(p, field);
            } catch (NoSuchFileException missing) {
                // a folder the patch creates: nothing under it exists yet, so no link either
            }
        }
        return paths;
    }

    private static void add(Set<String> paths, String p, String field) {
        if (p != null) paths.add(p);
    }

    /** The file name of a header line: up to a tab (a timestamp follows), unquoted when git quoted it. */
    private static String name(String s, String field) {
        String n = s;
        int tab = n.indexOf('\t');
        if (tab >= 0) n = n.substring(0, tab);
        n = n.strip();
        if (n.startsWith("\"")) {
            if (!n.endsWith("\"") || n.length() < 2) throw new UnsafePathException(field, n, "has an unterminated quoted file name");
            n = n.substring(1, n.length() - 1);
            if (n.indexOf('\\') >= 0) throw new UnsafePathException(field, n, "has a file name with escapes; rename the file or send its content instead");
        }
        return n;
    }

    /** -p1: drops the a/ or b/ component; /dev/null (a created or deleted file's other side) names nothing. */
    private static String stripOne(String n, String field) {
        if (n.equals("/dev/null")) return null;
        if (n.startsWith("/")) throw new UnsafePathException(field, n, "names an absolute path");
        int slash = n.indexOf('/');
        if (slash < 0) throw new UnsafePathException(field, n, "names a file without the a/ or b/ prefix that -p1 strips");
        return n.substring(slash + 1);
    }
}
