package dev.crucible.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Where a restore is built before it becomes its target, so a failure part-way leaves the target as
 * it was. Use with try-with-resources: {@link #publish} on success; {@link #close} removes what was
 * not published.
 *
 * <ul>
 * <li>{@link #beside}: a sibling folder (mode 0700 until its content says otherwise), renamed onto the
 *     target (absent, or an empty directory, which rename(2) replaces) in one step. For targets
 *     nothing else holds open.</li>
 * <li>{@link #inside}: a hidden folder inside an existing empty target, whose entries are renamed up
 *     into it. For a target that must keep its identity: a pod's volume that a running container
 *     has mounted would keep seeing the old directory if it were replaced.</li>
 * </ul>
 */
public final class StagedDirectory implements AutoCloseable {
    public static final String PREFIX = ".crucible-staging-";

    private final Path staging;
    private final Path target;
    private final boolean inside;
    private final boolean createdTarget;
    private boolean published;

    private StagedDirectory(Path staging, Path target, boolean inside, boolean createdTarget) {
        this.staging = staging;
        this.target = target;
        this.inside = inside;
        this.createdTarget = createdTarget;
    }

    /** {@code target} must be absent or an empty directory; its parent is created when missing. */
    public static StagedDirectory beside(Path target) throws IOException {
        Path t = target.toAbsolutePath().normalize();
        requireAbsentOrEmpty(t);
        Path parent = t.getParent();
        if (parent == null) throw new IOException(t + ": has no parent folder to stage beside");
        Files.createDirectories(parent);
        Path s = Files.createDirectory(parent.resolve("." + t.getFileName() + "." + PREFIX.substring(1) + UUID.randomUUID()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        return new StagedDirectory(s, t, false, false);
    }

    /** {@code target} is created when absent, must be empty when present, and keeps its inode. */
    public static StagedDirectory inside(Path target) throws IOException {
        Path t = target.toAbsolutePath().normalize();
        requireAbsentOrEmpty(t);
        boolean created = !Files.exists(t, LinkOption.NOFOLLOW_LINKS);
        if (created) Files.createDirectories(t);
        Path s = Files.createDirectory(t.resolve(PREFIX + UUID.randomUUID()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        return new StagedDirectory(s, t, true, created);
    }

    /** Build the result here. */
    public Path path() {
        return staging;
    }

    public Path target() {
        return target;
    }

    /** Makes the staged tree the target's content; after this, {@link #close} removes nothing. */
    public void publish() throws IOException {
        if (published) return;
        if (!inside) {
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            published = true;
            return;
        }
        List<Path> moved = new ArrayList<>();
        try (Stream<Path> entries = Files.list(staging)) {
            for (Path e : entries.toList()) {
                Path dest = target.resolve(e.getFileName().toString());
                Files.move(e, dest, StandardCopyOption.ATOMIC_MOVE); // same filesystem: a rename
                moved.add(dest);
            }
        } catch (IOException | RuntimeException e) {
            for (Path m : moved) {
                try {
                    Files.move(m, staging.resolve(m.getFileName().toString()), StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException ignored) {
                    TreeDelete.delete(m); // cannot put it back: at least do not leave it in the target
                }
            }
            throw e;
        }
        Files.delete(staging);
        published = true;
    }

    @Override
    public void close() throws IOException {
        if (published) return;
        TreeDelete.delete(staging);
        if (createdTarget) Files.deleteIfExists(target);
    }

    private static void requireAbsentOrEmpty(Path t) throws IOException {
        if (!Files.exists(t, LinkOption.NOFOLLOW_LINKS)) return;
        if (!Files.isDirectory(t, LinkOption.NOFOLLOW_LINKS)) throw new IOException(t + " exists and is not a folder; nothing was written");
        try (Stream<Path> s = Files.list(t)) {
            if (s.findAny().isPresent()) throw new IOException(t + " is not empty; nothing was written");
        }
    }
}
