package dev.crucible.cli.run;

import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.sandbox.Box;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The agent in the shared {@link Box} (the one grading uses too): the workspace writable, its
 * protected paths read-only, the files the agent command names read-only, nothing else of the
 * attempt folder, the manifest folder, the hidden tests or the state folder, which are simply not
 * in the box (no masks that would name them in /proc/self/mountinfo).
 */
public final class Bubblewrap implements Sandbox {
    /** Past this many protected files the argv grows unwieldy; the monitor still watches the rest. */
    static final int MAX_BINDS = 512;
    static final String HOME = "/tmp/home";
    private final Box box;
    private final Path workspace;

    Bubblewrap(Box box, Path workspace) {
        this.box = box;
        this.workspace = workspace;
    }

    public Box box() { return box; }

    @Override
    public String name() { return "bubblewrap"; }

    @Override
    public String home() { return HOME; }

    @Override
    public List<String> wrap(List<String> argv, Path cwd, Map<String, String> env) { return box.wrap(argv, cwd, env); }

    /** Files created in the workspace by the CLI (setup, write_file) go to the box's uid, so the agent may change them. */
    @Override
    public void prepare() throws IOException { box.handOver(workspace); }

    /** The box's cgroups are empty (none without root: then false, and the executor sweeps /proc as before). */
    @Override
    public boolean nothingLeft() { return box.emptied(); }

    @Override
    public java.util.Optional<String> limitExceeded(int exitCode) {
        box.noteExit(exitCode);
        return box.limitExceeded();
    }

    @Override
    public String limitLikely(int exitCode, String outputTail) { return box.rlimitLikely(exitCode, outputTail); }

    @Override
    public String describe() { return box.describe(); }

    @Override
    public void close() { box.close(); }

    /**
     * The existing workspace paths the protected globs cover: a folder for {@code dir/**} (so nothing
     * can be added to it either), each matching file otherwise.
     */
    /** Never holds a protected file (the grading tree leaves them out), and may hold tens of thousands of entries. */
    private static final java.util.Set<String> SKIPPED = java.util.Set.of(".git", "node_modules");

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
                return dirs.contains(dir) || SKIPPED.contains(dir.getFileName().toString()) ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                Path rel = workspace.relativize(file);
                // pyproject.toml & co. stay writable: only their test-runner sections are protected, judged by the monitor;
                // so do the files the verifier command runs (a Makefile): grading takes their pristine copy
                if (attrs.isRegularFile() && globs.isProtected(rel) && !globs.judgedBySections(rel) && !globs.runsFromPristine(rel) && out.size() < MAX_BINDS) out.add(file);
                return FileVisitResult.CONTINUE;
            }
        });
        return out;
    }
}
