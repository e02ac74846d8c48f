package dev.crucible.files;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How {@link BoundedRead} walks a relative path or a tree on a {@link NoFollowWalk}: links inside the root
 * expanded by {@link ContainedRoot} first, then one held directory at a time. Entries are keyed by
 * {@link EntryNames}, so a name that is not valid UTF-8 is listed and read like any other (issue 34).
 */
final class ReadPaths {
    private ReadPaths() {}

    /** Lists the held directory into {@code out} (keys relative to where the listing began), entering directories down to {@code depth}. */
    static void entries(NoFollowWalk w, String prefix, String rel, int max, int depth, Set<String> skipDirs,
            Map<String, BasicFileAttributes> out) throws IOException {
        List<String> dirs = new ArrayList<>();
        for (Path p : w.dir()) {
            Path n = p.getFileName(); // its bytes as the directory has them: the key may differ, the lstat may not
            String name = EntryNames.key(n);
            BasicFileAttributes a = w.lstat(n);
            if (a == null) continue; // removed while listed
            if (out.size() >= max) throw new FileRefusal(FileRefusal.Kind.TOO_BIG, rel, "more than " + max + " entries");
            out.put(prefix + name, a);
            if (a.isDirectory() && depth > 1 && !skipDirs.contains(name)) dirs.add(name);
        }
        for (String d : dirs) {
            try {
                w.enter(d, rel + "/" + prefix + d);
            } catch (NoSuchFileException | NotDirectoryException | FileRefusal gone) {
                continue; // replaced while listed: the next listing sees what it became
            }
            try {
                entries(w, prefix + d + "/", rel, max, depth - 1, skipDirs, out);
            } finally {
                w.leave();
            }
        }
    }

    static void enterDir(ContainedRoot root, NoFollowWalk w, String rel) throws IOException {
        String last = into(root, w, rel, true);
        if (last != null) w.enter(last, rel);
    }

    /**
     * Expands the links of {@code rel} ({@code resolveLast}: of its final component too), enters every
     * directory before the final component and returns that component's key (null: the root itself).
     * A path with an escaped name ({@link EntryNames}) is taken as it is: its names are found by their
     * bytes, and a link in it is refused, not expanded (honest trees have neither).
     */
    static String into(ContainedRoot root, NoFollowWalk w, String rel, boolean resolveLast) throws IOException {
        String text = rel == null ? "" : rel.strip();
        if (text.isEmpty() || text.equals(".")) return null;
        List<String> comps = new ArrayList<>();
        try {
            if (EntryNames.escaped(text)) {
                ContainedRoot.checkText(text, "path");
                for (String c : text.split("/")) {
                    if (c.equals("..")) throw new FileRefusal(FileRefusal.Kind.LINK_OUT, rel, "'..' beside a name that is not valid UTF-8");
                    if (!c.isEmpty() && !c.equals(".")) comps.add(c);
                }
            } else {
                String parent = null;
                String last = text;
                int slash = text.replaceAll("/+$", "").lastIndexOf('/');
                if (!resolveLast && slash >= 0) {
                    parent = text.substring(0, slash);
                    last = text.substring(slash + 1).replaceAll("/+$", "");
                }
                if (!resolveLast && (last.equals("..") || last.equals("."))) return into(root, w, rel, true);
                if (resolveLast) {
                    comps.addAll(components(root.root().relativize(root.resolve(text, "path"))));
                } else {
                    if (parent != null && !parent.isEmpty()) comps.addAll(components(root.root().relativize(root.resolve(parent, "path"))));
                    ContainedRoot.checkText(last, "path");
                    comps.add(last);
                }
            }
        } catch (UnsafePathException e) {
            if (e.dangling()) throw new NoSuchFileException(rel);
            throw new FileRefusal(FileRefusal.Kind.LINK_OUT, rel, e.getMessage().substring(e.getMessage().indexOf(' ') + 1));
        }
        if (comps.isEmpty()) return null;
        for (String c : comps.subList(0, comps.size() - 1)) w.enter(c, rel);
        return comps.get(comps.size() - 1);
    }

    private static List<String> components(Path rel) {
        List<String> out = new ArrayList<>();
        for (Path p : rel) if (!p.toString().isEmpty()) out.add(p.toString());
        return out;
    }
}
