package dev.crucible.cli.run;

import dev.crucible.verifier.pristine.ProtectedPaths;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent under bubblewrap: the whole file system read-only, only the workspace writable, the
 * protected paths inside it bound read-only again, a fresh /tmp and HOME, no network, its own PID
 * namespace (killing bwrap ends every process in it), and it dies with the CLI.
 *
 * @param readable paths under /tmp that must stay visible despite the fresh /tmp (the attempt folder,
 *                 the manifest's folder); bound read-only
 * @param readOnly existing protected files and folders inside the workspace
 * @param masked   folders (hidden tests, the episode's state) replaced by an empty tmpfs
 * @param maskedFiles files (a hidden test patch) replaced by /dev/null
 */
public record Bubblewrap(Path bwrap, Path workspace, List<Path> readable, List<Path> readOnly, List<Path> masked,
                         List<Path> maskedFiles) implements Sandbox {
    /** Past this many protected files the argv grows unwieldy; the monitor still watches the rest. */
    static final int MAX_BINDS = 512;
    static final String HOME = "/tmp/home";

    @Override
    public String name() { return "bubblewrap"; }

    @Override
    public String home() { return HOME; }

    @Override
    public List<String> wrap(List<String> argv, Path cwd) {
        List<String> a = new ArrayList<>(List.of(bwrap.toString(), "--die-with-parent", "--new-session",
                "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--dir", HOME));
        for (Path p : readable) if (Files.exists(p)) bind(a, "--ro-bind", p);
        bind(a, "--bind", workspace);
        for (Path p : readOnly) bind(a, "--ro-bind", p);
        for (Path p : masked) if (Files.isDirectory(p)) { a.add("--tmpfs"); a.add(p.toString()); }
        for (Path p : maskedFiles) if (Files.isRegularFile(p)) { a.add("--ro-bind"); a.add("/dev/null"); a.add(p.toString()); }
        a.add("--chdir");
        a.add(cwd.toString());
        a.add("--");
        a.addAll(argv);
        return a;
    }

    @Override
    public String describe() {
        return "sandbox: bubblewrap (no network, writes only in the workspace, " + readOnly.size()
                + " protected path" + (readOnly.size() == 1 ? "" : "s") + " read-only, own PID namespace, fresh /tmp)";
    }

    private static void bind(List<String> a, String how, Path p) {
        a.add(how);
        a.add(p.toString());
        a.add(p.toString());
    }

    /**
     * The existing workspace paths the protected globs cover: a folder for {@code dir/**} (so nothing
     * can be added to it either), each matching file otherwise.
     */
    static List<Path> protectedTargets(Path workspace, ProtectedPaths globs) throws IOException {
        List<Path> dirs = new ArrayList<>();
        for (String g : globs.globs()) {
            if (g.endsWith("/**") && !g.substring(0, g.length() - 3).matches(".*[*?\\[{].*")) {
                Path d = workspace.resolve(g.substring(0, g.length() - 3)).normalize();
                if (d.startsWith(workspace) && Files.isDirectory(d) && !d.equals(workspace)) dirs.add(d);
            }
        }
        List<Path> out = new ArrayList<>(dirs);
        Files.walkFileTree(workspace, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return dirs.contains(dir) || dir.getFileName().toString().equals(".git") ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                Path rel = workspace.relativize(file);
                // pyproject.toml & co. stay writable: only their test-runner sections are protected, judged by the monitor
                if (attrs.isRegularFile() && globs.isProtected(rel) && !globs.judgedBySections(rel) && out.size() < MAX_BINDS) out.add(file);
                return FileVisitResult.CONTINUE;
            }
        });
        return out;
    }
}
