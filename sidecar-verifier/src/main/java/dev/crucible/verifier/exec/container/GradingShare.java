package dev.crucible.verifier.exec.container;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The grading layout on the volume the sidecar shares with the grading container, made fit for a
 * graded command that runs there under another uid: {@code grade-N} and {@code support-N} writable by
 * the sidecar only (whatever modes the agent gave its files: readable, never writable by the grader),
 * {@code results-N} and its {@code home} writable by anyone but sticky, so the graded command cannot
 * remove or replace what the sidecar put there (the pytest ini file, the result channel's FIFO).
 * A command that may write its tree gets {@code grade-N}'s folders writable by anyone but sticky and the
 * agent's files writable in place, while the grader's files stay read-only: the graded command can add
 * files, never remove, rename or rewrite one of the grader's (nor any file or folder the sidecar made).
 */
final class GradingShare {
    private static final Pattern LAYOUT = Pattern.compile("(grade|results|support)-(\\d+)");
    private static final Set<PosixFilePermission> DIR = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> EXEC = DIR;
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-r--r--");

    /** A command's place in the layout: the base holding grade-N, results-N, support-N, and N. */
    record Layout(Path base, String n) {
        Path grade() { return base.resolve("grade-" + n); }
        Path results() { return base.resolve("results-" + n); }
        Path support() { return base.resolve("support-" + n); }
    }

    private GradingShare() {}

    /** The layout {@code cwd} lies in, or empty (the interpreter probe runs from the workspace). */
    static Optional<Layout> of(Path cwd) {
        for (Path p = cwd.toAbsolutePath().normalize(); p != null && p.getFileName() != null; p = p.getParent()) {
            Matcher m = LAYOUT.matcher(p.getFileName().toString());
            if (m.matches() && p.getParent() != null) return Optional.of(new Layout(p.getParent(), m.group(2)));
        }
        return Optional.empty();
    }

    /** {@code graderFiles} non-null: the tree is writable but for them (see the class comment). */
    static void prepare(Layout l, java.util.List<Path> graderFiles) throws IOException {
        if (graderFiles == null) readOnlyForOthers(l.grade());
        else writableButFor(l.grade(), new java.util.HashSet<>(graderFiles));
        readOnlyForOthers(l.support());
        Files.createDirectories(l.results().resolve("home"));
        sticky(java.util.List.of(l.results(), l.results().resolve("home")));
    }

    /** Links are left alone: a mode change would reach their target. */
    private static void readOnlyForOthers(Path root) throws IOException {
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) return;
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) throws IOException {
                Files.setPosixFilePermissions(d, DIR);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                if (a.isRegularFile()) {
                    Files.setPosixFilePermissions(f, Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS)
                            .contains(PosixFilePermission.OWNER_EXECUTE) ? EXEC : FILE);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void writableButFor(Path root, Set<Path> graderFiles) throws IOException {
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) return;
        java.util.List<Path> dirs = new java.util.ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
                dirs.add(d);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                if (!a.isRegularFile()) return FileVisitResult.CONTINUE;
                boolean exec = Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS).contains(PosixFilePermission.OWNER_EXECUTE);
                Files.setPosixFilePermissions(f, graderFiles.contains(f.toAbsolutePath().normalize()) ? (exec ? EXEC : FILE)
                        : PosixFilePermissions.fromString(exec ? "rwxrwxrwx" : "rw-rw-rw-"));
                return FileVisitResult.CONTINUE;
            }
        });
        sticky(dirs);
    }

    /** 1777, one chmod for all (in chunks): Java's permission sets have no sticky bit. */
    private static void sticky(java.util.List<Path> dirs) throws IOException {
        for (int i = 0; i < dirs.size(); i += 500) {
            java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("chmod", "1777", "--"));
            dirs.subList(i, Math.min(dirs.size(), i + 500)).forEach(d -> cmd.add(d.toString()));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try {
                String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException("chmod 1777: " + out.strip());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("chmod 1777: interrupted", e);
            }
        }
    }
}
