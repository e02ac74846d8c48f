package dev.crucible.files;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Deletes a tree without following links: a link is removed, never what it points to, and never chmod-ed through.
 *
 * <p>Every operation is relative to a held directory descriptor ({@link SecureDirectoryStream}: openat with
 * {@code O_NOFOLLOW}, fstatat, unlinkat, renameat), never a path, so a tree nested past PATH_MAX (an agent's
 * {@code mkdir} loop by descriptors) is removed fully: before, the path-based walk failed with {@code File name too
 * long} and the run's state folder stayed. At most {@link #MAX_OPEN} folders are held open: a folder that deep is
 * moved up into the tree's top folder (renameat between the two held descriptors) and removed from there, so neither
 * the descriptors held nor the Java stack grow with the depth.
 */
public final class TreeDelete {
    /** Folders held open at once; deeper ones are moved up to the top folder first. */
    static final int MAX_OPEN = 64;
    /** Times a folder is emptied again when entries appeared while it was emptied (a process still writing). */
    private static final int REFILLS = 3;
    private static final Set<PosixFilePermission> OWNER_ALL = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private TreeDelete() {}

    public static void delete(Path p) throws IOException {
        delete(p, () -> false);
    }

    /**
     * As {@link #delete(Path)}, ending early (the rest left in place, all of it still under {@code p}) once {@code stop}
     * says so, checked before each entry: removing 150,000 agent files takes minutes on a disk that discards on unlink,
     * and a caller bounds its wait.
     */
    public static void delete(Path p, BooleanSupplier stop) throws IOException {
        Path abs = p.toAbsolutePath();
        if (!Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) return;
        if (!Files.isDirectory(abs, LinkOption.NOFOLLOW_LINKS)) {
            Files.deleteIfExists(abs); // a file, or a link (removed itself)
            return;
        }
        new Removal(stop).tree(abs);
    }

    /** One removal: the folders held open from the tree's top down, and names moved up into the top folder. */
    private static final class Removal {
        private final BooleanSupplier stop;
        private final Deque<Frame> open = new ArrayDeque<>();
        /** Folders moved up into the top one (past {@link #MAX_OPEN}, or unreadable), removed after its own entries. */
        private final Deque<Path> movedUp = new ArrayDeque<>();
        private long moves;

        Removal(BooleanSupplier stop) {
            this.stop = stop;
        }

        /** A held folder, its remaining entries, and its name in the folder above (null for the top). */
        private record Frame(SecureDirectoryStream<Path> dir, Iterator<Path> entries, Path name, int refills) {}

        /**
         * The top folder is the caller's own path (just seen to be a folder, not a link): opened and, once empty, removed by
         * that path; everything under it only through held descriptors.
         */
        void tree(Path top) throws IOException {
            for (int round = 0; ; round++) {
                if (!empty(top)) return; // stopped: the rest stays under the top folder
                try {
                    Files.delete(top);
                    return;
                } catch (NoSuchFileException e) {
                    return;
                } catch (DirectoryNotEmptyException e) {
                    if (round >= REFILLS) throw new DirectoryNotEmptyException(top + ": refilled while it was removed");
                }
            }
        }

        /** Removes everything in the top folder; false when {@code stop} ended it first. */
        private boolean empty(Path topPath) throws IOException {
            SecureDirectoryStream<Path> top = openTop(topPath);
            try {
                open.push(new Frame(top, top.iterator(), null, 0));
                while (!open.isEmpty()) {
                    if (stop.getAsBoolean()) return false;
                    Frame f = open.peek();
                    if (f.entries().hasNext()) {
                        entry(f, f.entries().next().getFileName());
                    } else if (open.size() == 1 && !movedUp.isEmpty()) {
                        enter(f, movedUp.pop());
                    } else {
                        leave(topPath);
                    }
                }
                return true;
            } finally {
                while (!open.isEmpty()) closeQuietly(open.pop().dir());
            }
        }

        private void entry(Frame f, Path name) throws IOException {
            BasicFileAttributes a;
            try {
                a = f.dir().getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
            } catch (NoSuchFileException e) {
                return;
            }
            if (!a.isDirectory()) {
                try {
                    f.dir().deleteFile(name); // unlinkat: a link, FIFO, socket or device is never opened
                } catch (NoSuchFileException e) {
                    // gone already
                }
            } else if (open.size() >= MAX_OPEN) {
                moveUp(f.dir(), name);
            } else {
                enter(f, name);
            }
        }

        /** Holds folder {@code name} of {@code f} open and goes in. */
        private void enter(Frame f, Path name) throws IOException {
            SecureDirectoryStream<Path> d;
            try {
                d = f.dir().newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                return;
            } catch (AccessDeniedException e) {
                // no read or search right for its owner (an agent's chmod 000): given them, then opened
                d = f.dir().newDirectoryStream(grantOwner(f.dir(), name), LinkOption.NOFOLLOW_LINKS);
            }
            makeWritable(d);
            open.push(new Frame(d, d.iterator(), name, 0));
        }

        /** Ends the folder on top: removed from the one above, or, when something appeared in it meanwhile, emptied again. */
        private void leave(Path shown) throws IOException {
            Frame f = open.pop();
            closeQuietly(f.dir());
            if (f.name() == null) return; // the top folder: removed by tree()
            Frame up = open.peek();
            try {
                up.dir().deleteDirectory(f.name());
            } catch (NoSuchFileException e) {
                // gone already
            } catch (DirectoryNotEmptyException e) {
                if (f.refills() >= REFILLS) throw new DirectoryNotEmptyException(shown + ": a folder in it was refilled while it was removed");
                SecureDirectoryStream<Path> again = up.dir().newDirectoryStream(f.name(), LinkOption.NOFOLLOW_LINKS);
                open.push(new Frame(again, again.iterator(), f.name(), f.refills() + 1));
            }
        }

        /**
         * renameat from a held folder into the top one, under a fresh name removed after the top's own entries. Moving a
         * folder to another parent rewrites its "..": the kernel wants its owner's write right on it too.
         */
        private void moveUp(SecureDirectoryStream<Path> from, Path name) throws IOException {
            for (int tries = 0; ; tries++) {
                Path to = Path.of(".crucible-delete-" + ProcessHandle.current().pid() + "-" + (++moves));
                try {
                    from.move(name, open.getLast().dir(), to);
                    movedUp.push(to);
                    return;
                } catch (AccessDeniedException e) {
                    if (tries > 0) throw e;
                    grantOwner(from, name);
                } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
                    if (tries > 2) throw e; // the tree held that name already: the next one
                }
            }
        }

        private static SecureDirectoryStream<Path> openTop(Path top) throws IOException {
            DirectoryStream<Path> d;
            try {
                d = Files.newDirectoryStream(top);
            } catch (AccessDeniedException e) {
                Files.setPosixFilePermissions(top, OWNER_ALL); // the caller's own folder, with no right for its owner
                d = Files.newDirectoryStream(top);
            }
            if (!(d instanceof SecureDirectoryStream<Path> sd)) {
                d.close();
                throw new IOException(top + ": this platform has no descriptor-relative file operations to remove it with");
            }
            makeWritable(sd);
            return sd;
        }
    }

    /**
     * Gives the owner every right on folder {@code name} of {@code dir}, which its owner cannot open. Java has no fchmodat and
     * fchmod needs the folder open, so the mode is changed through the held folder's descriptor as /proc/self/fd/N/NAME: the
     * kernel resolves N to the held folder itself, never a path, whatever its depth. Returns {@code name}.
     */
    private static Path grantOwner(SecureDirectoryStream<Path> dir, Path name) throws IOException {
        Object key = dir.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    if (key == null || !key.equals(Files.readAttributes(fd, BasicFileAttributes.class).fileKey())) continue; // stat: no open
                } catch (IOException e) {
                    continue; // closed meanwhile, or not ours to stat
                }
                Path entry = fd.resolve(name);
                if (!Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) break; // not a folder now: the open's own error stands
                Files.setPosixFilePermissions(entry, OWNER_ALL);
                return name;
            }
        }
        throw new AccessDeniedException(name.toString(), null, "cannot be opened, and its held folder was not found in /proc/self/fd");
    }

    /** A folder its owner may not write (tests often make them) refuses its entries' removal: fchmod on the held descriptor. */
    private static void makeWritable(SecureDirectoryStream<Path> d) {
        try {
            PosixFileAttributeView v = d.getFileAttributeView(PosixFileAttributeView.class);
            Set<PosixFilePermission> perms = v.readAttributes().permissions();
            if (!perms.containsAll(OWNER_ALL)) {
                Set<PosixFilePermission> p = EnumSet.copyOf(OWNER_ALL);
                p.addAll(perms);
                v.setPermissions(p);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // another owner's folder (root removing it needs no mode); its entries' removal says what failed
        }
    }

    private static void closeQuietly(SecureDirectoryStream<Path> d) {
        try {
            d.close();
        } catch (IOException e) {
            // closing a directory descriptor does not fail in a way that matters here
        }
    }
}
