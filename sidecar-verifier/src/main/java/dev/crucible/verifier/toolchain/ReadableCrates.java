package dev.crucible.verifier.toolchain;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * Cargo unpacks a crate with the modes its publisher's tarball has: fnv 1.0.7's lib.rs is 0640. On CI one user builds,
 * so that reads; here the agent's and grading's boxes run as another user, to whom the prefix's files are "other", and
 * bat's grading stopped with "couldn't read …/fnv-1.0.7/lib.rs: Permission denied". After setup's {@code cargo fetch},
 * the unpacked sources (registry/src, git/checkouts) get read (and, where the owner has it, execute) for everyone.
 * Nothing else changes: no write bit is added, links are not followed, and these folders hold only downloaded sources.
 */
final class ReadableCrates {
    private static final Set<String> SOURCES = Set.of("registry/src", "git/checkouts");

    private ReadableCrates() {}

    /** Returns how many files and folders were made readable under {@code cargoHome}'s unpacked sources. */
    static int apply(Path cargoHome) throws IOException {
        int[] changed = {0};
        for (String s : SOURCES) {
            Path root = cargoHome.resolve(s);
            if (!Files.isDirectory(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) continue;
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    if (widen(dir, true)) changed[0]++;
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    if (attrs.isRegularFile() && widen(file, false)) changed[0]++;
                    return FileVisitResult.CONTINUE;
                }
            });
        }
        return changed[0];
    }

    private static boolean widen(Path p, boolean dir) throws IOException {
        Set<PosixFilePermission> now = Files.getPosixFilePermissions(p, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> want = EnumSet.copyOf(now);
        want.add(PosixFilePermission.OWNER_READ);
        want.add(PosixFilePermission.GROUP_READ);
        want.add(PosixFilePermission.OTHERS_READ);
        if (dir || now.contains(PosixFilePermission.OWNER_EXECUTE)) {
            want.add(PosixFilePermission.GROUP_EXECUTE);
            want.add(PosixFilePermission.OTHERS_EXECUTE);
        }
        if (want.equals(now)) return false;
        Files.setPosixFilePermissions(p, want);
        return true;
    }
}
