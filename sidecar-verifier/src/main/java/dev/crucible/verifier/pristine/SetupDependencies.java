package dev.crucible.verifier.pristine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Dependency folders that setup fills inside the workspace ({@code npm ci} writes {@code node_modules}
 * there, not into the environment's prefix). The agent cannot change them (its box binds them read-only);
 * grading uses them as they were after setup: at reset each is fingerprinted by every entry's path, size,
 * inode and change time (a time no unprivileged process can set back), and at grading the tree gets a link
 * to it only when the fingerprint is unchanged. The grading box binds the link's target read-only.
 * A folder the agent made (none at reset) or changed is never graded with: its runner could report
 * anything.
 */
public final class SetupDependencies {
    /** The dependency folders looked for at the workspace's top, and in its workspace packages (see {@link #find}). */
    public static final List<String> DIRS = List.of("node_modules");
    /** How deep workspace packages are looked for: packages/svelte (2), apps/web/ui (3), one more. */
    static final int PACKAGE_DEPTH = 4;
    /**
     * Caches tools keep inside node_modules (find-cache-dir's {@code .cache}, Vite's and so vitest's {@code .vite}
     * and {@code .vite-temp}, where it bundles its config): made at capture, and each box mounts them empty and
     * writable, so that the folder around them stays read-only and unchanged.
     */
    public static final List<String> SCRATCH = List.of(".cache", ".vite", ".vite-temp");
    private final Path workspace;
    private final Map<String, String> fingerprints;

    private SetupDependencies(Path workspace, Map<String, String> fingerprints) {
        this.workspace = workspace;
        this.fingerprints = Map.copyOf(fingerprints);
    }

    /** What setup left in {@code workspace}; empty when none of {@link #DIRS} is a real folder there. */
    public static SetupDependencies capture(Path workspace) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String d : find(workspace, false)) {
            Path p = workspace.resolve(d);
            if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) continue;
            for (String c : SCRATCH) {
                try {
                    if (!Files.exists(p.resolve(c), LinkOption.NOFOLLOW_LINKS)) Files.createDirectory(p.resolve(c));
                } catch (IOException e) {
                    // a tool that wants it fails as it would have without; the fingerprint still holds
                }
            }
            f.put(d, fingerprint(p));
        }
        return new SetupDependencies(workspace, f);
    }

    public static SetupDependencies none(Path workspace) { return new SetupDependencies(workspace, Map.of()); }

    public boolean isEmpty() { return fingerprints.isEmpty(); }

    /**
     * Links each unchanged folder into {@code gradeRoot} (absolute link to the workspace's folder) and
     * removes the link of a changed one. Returns what changed since {@link #capture}, one line each.
     */
    public List<String> linkInto(Path gradeRoot) {
        List<String> changed = new ArrayList<>();
        for (Map.Entry<String, String> e : fingerprints.entrySet()) {
            Path src = workspace.resolve(e.getKey());
            Path link = gradeRoot.resolve(e.getKey());
            try {
                // a workspace package's folder must be a real folder in the tree: a link there (the agent's) could
                // send the grader's link elsewhere; its package then grades without its dependencies
                if (!realFolders(gradeRoot, Path.of(e.getKey()).getParent())) continue;
                boolean same = Files.isDirectory(src, LinkOption.NOFOLLOW_LINKS) && fingerprint(src).equals(e.getValue());
                if (Files.isSymbolicLink(link)) Files.delete(link);
                if (same) {
                    Files.createDirectories(gradeRoot);
                    Files.createSymbolicLink(link, src.toRealPath());
                } else {
                    changed.add(e.getKey() + " changed after setup (the agent's copy is not graded with)");
                }
            } catch (IOException x) {
                throw new UncheckedIOException("linking " + e.getKey() + " into " + gradeRoot, x);
            }
        }
        return changed;
    }

    /** The real folders the links in {@code gradeRoot} lead to: the grading box shows them read-only. */
    public static List<Path> linkedTargets(Path gradeRoot) {
        List<Path> out = new ArrayList<>();
        for (String d : find(gradeRoot, true)) resolved(gradeRoot.resolve(d)).ifPresent(out::add);
        return out;
    }

    /**
     * The dependency folders under {@code root}, relative: {@link #DIRS} at the top, and those of workspace packages
     * (a folder with a package.json, up to {@link #PACKAGE_DEPTH} deep; pnpm gives each its own node_modules of links
     * into the top one's .pnpm, which svelte's vitest files import through). {@code links}: the grading tree's links
     * to them rather than real folders. Hidden folders and dependency folders are not entered; links are not followed.
     */
    public static List<String> find(Path root, boolean links) {
        List<String> out = new ArrayList<>();
        for (String d : DIRS) if (wanted(root.resolve(d), links)) out.add(d);
        packages(root, "", 1, links, out);
        return out;
    }

    private static void packages(Path dir, String rel, int depth, boolean links, List<String> out) {
        if (depth > PACKAGE_DEPTH) return;
        try (java.nio.file.DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path c : s) {
                String name = c.getFileName().toString();
                if (name.startsWith(".") || DIRS.contains(name) || !Files.isDirectory(c, LinkOption.NOFOLLOW_LINKS)) continue;
                String r = rel.isEmpty() ? name : rel + "/" + name;
                if (Files.isRegularFile(c.resolve("package.json"), LinkOption.NOFOLLOW_LINKS)) {
                    for (String d : DIRS) if (wanted(c.resolve(d), links)) out.add(r + "/" + d);
                }
                packages(c, r, depth + 1, links, out);
            }
        } catch (IOException e) {
            // a folder that cannot be listed has no dependency folder grading could use
        }
    }

    private static boolean wanted(Path p, boolean links) {
        return links ? Files.isSymbolicLink(p) : Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
    }

    /** Whether each folder of {@code rel} (null: the root itself) is a real folder, made where missing. */
    private static boolean realFolders(Path root, Path rel) throws IOException {
        Path cur = root;
        for (int i = 0; rel != null && i < rel.getNameCount(); i++) {
            cur = cur.resolve(rel.getName(i).toString());
            if (Files.isSymbolicLink(cur) || Files.exists(cur, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(cur, LinkOption.NOFOLLOW_LINKS)) return false;
            if (!Files.exists(cur, LinkOption.NOFOLLOW_LINKS)) Files.createDirectory(cur);
        }
        return true;
    }

    /** The scratch folders of {@code dependencyDirs} (see {@link #SCRATCH}); a box mounts those that are folders when it starts a command. */
    public static List<Path> scratch(List<Path> dependencyDirs) {
        List<Path> out = new ArrayList<>();
        for (Path d : dependencyDirs) for (String c : SCRATCH) out.add(d.resolve(c));
        return out;
    }

    private static Optional<Path> resolved(Path link) {
        try {
            Path t = link.toRealPath();
            return Files.isDirectory(t) ? Optional.of(t) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** SHA-256 over the path, size, inode and change time of every entry; links are not followed. */
    static String fingerprint(Path root) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try (Stream<Path> entries = Files.walk(root)) { // links are not followed
            for (Path p : (Iterable<Path>) entries::iterator) {
                Map<String, Object> a = Files.readAttributes(p, "unix:size,ino,ctime", LinkOption.NOFOLLOW_LINKS);
                md.update((root.relativize(p) + "\0" + a.get("size") + "\0" + a.get("ino") + "\0" + a.get("ctime") + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("fingerprinting " + root, e);
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
