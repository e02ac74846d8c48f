package dev.crucible.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A directory that relative paths from an untrusted source are resolved under, one component at a
 * time, without ever letting the operating system follow a link: each component is looked at with
 * lstat, a link is expanded here and its target walked the same way (from the root when absolute),
 * and the walk refuses a link that leaves the root or dangles. Every path it returns is real (no
 * links in it) and inside the root; {@link #write} opens that path again one folder at a time with
 * openat(O_NOFOLLOW) from the root down, so a link planted anywhere in it between the walk and the open
 * makes the open fail instead of writing elsewhere.
 *
 * <p>A missing parent is made the same way: from the root's descriptor down, never by path, so a checked
 * directory swapped for a link while the walk runs cannot redirect the {@code mkdir} either.
 */
public final class ContainedRoot {
    /** As the kernel's MAXSYMLINKS: more link expansions than this in one path is a loop. */
    static final int MAX_LINKS = 40;
    /** O_RDWR|O_CREAT|O_NOFOLLOW: never blocks on a FIFO, never follows a final link. */
    private static final java.util.Set<OpenOption> WRITE_NEW_OR_OLD = java.util.Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
            StandardOpenOption.CREATE, LinkOption.NOFOLLOW_LINKS);

    private final Path root;
    private final String name;

    private ContainedRoot(Path realRoot, String name) {
        this.root = realRoot;
        this.name = name;
    }

    /** The root itself may be reached through links (a configured path); what is under it may not leave it. */
    public static ContainedRoot of(Path directory) throws IOException {
        return of(directory, "root");
    }

    /** {@code name} is what messages call the root: "leaves the workspace through '..'". */
    public static ContainedRoot of(Path directory, String name) throws IOException {
        Path real = directory.toRealPath();
        if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) throw new NoSuchFileException(directory + ": not a directory");
        return new ContainedRoot(real, name);
    }

    public Path root() {
        return root;
    }

    /**
     * Checks the text of a path alone: present, no NUL, relative, and no '..' that climbs above its
     * start. Every resolve does this first; callers that only store a path use it to refuse early.
     */
    public static void checkText(String relative, String field) {
        checkText(relative, field, "root");
    }

    private static void checkText(String relative, String field, String name) {
        if (relative == null || relative.isEmpty()) throw new UnsafePathException(field, "", "is empty; a path relative to the " + name + " is required");
        if (relative.indexOf('\0') >= 0) throw new UnsafePathException(field, relative, "contains a NUL byte");
        if (relative.startsWith("/")) throw new UnsafePathException(field, relative, "is absolute; give a path relative to the " + name);
        int depth = 0;
        for (String c : relative.split("/")) {
            if (c.isEmpty() || c.equals(".")) continue;
            depth += c.equals("..") ? -1 : 1;
            if (depth < 0) throw new UnsafePathException(field, relative, "leaves the " + name + " through '..'");
        }
    }

    /**
     * The real location {@code relative} names, for reading or listing: every component that exists
     * is checked; a missing intermediate directory is {@link NoSuchFileException}; a missing final
     * component is returned as it would be created.
     */
    public Path resolve(String relative, String field) throws IOException {
        checkText(relative, field, name);
        return walk(root, relative, field, relative, false, false, new int[] {0});
    }

    /** As {@link #resolve}, creating missing parent directories (never through a link). */
    public Path resolveForWrite(String relative, String field) throws IOException {
        checkText(relative, field, name);
        Path p = walk(root, relative, field, relative, true, false, new int[] {0});
        if (p.equals(root)) throw new UnsafePathException(field, relative, "names the " + name + " itself, not a file in it");
        return p;
    }

    /** Opens an existing regular file for reading; the final component is opened without following a link. */
    public InputStream openRead(String relative, String field) throws IOException {
        Path p = resolve(relative, field);
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) throw new NoSuchFileException(relative);
        return Files.newInputStream(p, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Creates or truncates the file and writes {@code bytes}; parents are created inside the root. The open
     * itself is contained, not only the check before it: every folder of the resolved path is opened with
     * openat(O_NOFOLLOW) from the one before it, held open from the root down ({@link NoFollowWalk}), so a
     * folder swapped for a link after the check fails the open instead of leading it out. The file is opened
     * read-write: a FIFO swapped in after the check then opens at once (write-only would wait for a reader)
     * and is refused by its failing lseek, unwritten.
     */
    public Path write(String relative, byte[] bytes, String field) throws IOException {
        Path p = resolveForWrite(relative, field);
        java.util.List<String> comps = new java.util.ArrayList<>();
        for (Path c : root.relativize(p)) comps.add(c.toString());
        String last = comps.remove(comps.size() - 1);
        try (NoFollowWalk w = NoFollowWalk.open(root, null)) {
            for (String c : comps) w.enter(c, relative);
            Path name = Path.of(last);
            BasicFileAttributes a = w.lstat(name);
            if (a != null && a.isDirectory()) throw new UnsafePathException(field, relative, "is a directory");
            // Opening a FIFO for writing blocks until a reader comes, a device takes the bytes elsewhere: neither is ever opened.
            if (a != null && !a.isRegularFile()) {
                throw new UnsafePathException(field, relative, "is " + FileKinds.of(p) + "; only a regular file is written");
            }
            SeekableByteChannel ch;
            try {
                ch = w.dir().newByteChannel(name, WRITE_NEW_OR_OLD);
            } catch (FileSystemException e) {
                if (e.getMessage() != null && e.getMessage().contains("symbolic link")) { // ELOOP from O_NOFOLLOW
                    throw new UnsafePathException(field, relative, "became a link between the check and the open; not written");
                }
                throw e;
            }
            try (ch) {
                try {
                    ch.position();
                } catch (IOException espipe) {
                    throw new UnsafePathException(field, relative, "became a FIFO or socket between the check and the open; not written");
                }
                ch.truncate(0);
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) ch.write(b);
            }
        } catch (FileRefusal raced) { // a folder of the path became a link or a special file after the check
            throw new UnsafePathException(field, relative, raced.kind().words() + " in the path after it was checked; not written");
        }
        return p;
    }

    /** {@code path} relative to the root, for messages ("wrote 3 characters to a/b.txt"). */
    public String relativeText(Path real) {
        return root.relativize(real).toString();
    }

    /**
     * Walks {@code text} from {@code start}. {@code mustExist}: a link target, where anything missing
     * means the link dangles. {@code links}: expansions so far in this resolve, shared by nested walks.
     */
    private Path walk(Path start, String text, String field, String given, boolean create, boolean mustExist, int[] links)
            throws IOException {
        Deque<String> todo = new ArrayDeque<>();
        for (String c : text.split("/")) if (!c.isEmpty() && !c.equals(".")) todo.addLast(c);
        Path cur = start;
        while (!todo.isEmpty()) {
            String c = todo.removeFirst();
            boolean last = todo.isEmpty();
            if (c.equals("..")) {
                if (cur.equals(root)) throw new UnsafePathException(field, given, "leaves the " + name + " through '..'");
                cur = cur.getParent();
                continue;
            }
            Path next = cur.resolve(c);
            BasicFileAttributes a = lstat(next);
            if (a == null) {
                if (mustExist) throw new UnsafePathException(field, given, "goes through a dangling link", true);
                if (last) return next;
                if (!create) throw new NoSuchFileException(given);
                try {
                    makeDirectory(cur, c, field, given);
                } catch (FileAlreadyExistsException raced) {
                    todo.addFirst(c); // something appeared under us: look at it again
                    continue;
                }
                cur = next;
                continue;
            }
            if (a.isSymbolicLink()) {
                if (++links[0] > MAX_LINKS) throw new UnsafePathException(field, given, "has too many levels of links");
                Path target = Files.readSymbolicLink(next);
                Path resolved;
                if (target.isAbsolute()) {
                    Path t = target.normalize();
                    if (!t.startsWith(root)) throw new UnsafePathException(field, given, "goes through a link to " + target + ", outside the " + name);
                    resolved = walk(root, root.relativize(t).toString(), field, given, false, true, links);
                } else {
                    resolved = walk(cur, target.toString(), field, given, false, true, links);
                }
                if (last) return resolved;
                if (!Files.isDirectory(resolved, LinkOption.NOFOLLOW_LINKS)) throw new NoSuchFileException(given + ": not a directory");
                cur = resolved;
                continue;
            }
            if (a.isDirectory()) {
                cur = next;
                continue;
            }
            if (last) return next;
            throw new NoSuchFileException(given + ": " + root.relativize(next) + " is not a directory");
        }
        return cur;
    }

    /**
     * mkdir of {@code c} in {@code parent} (a real, link-free folder under the root) that no link can lead out: the
     * folders from the root down are opened with openat(O_NOFOLLOW) and the new folder is put into the last one
     * by its descriptor ({@link NoFollowWalk#makeDirectory}). A plain mkdir by path follows a link that an agent
     * swaps in for any folder above it after the walk looked at it.
     */
    private void makeDirectory(Path parent, String c, String field, String given) throws IOException {
        try (NoFollowWalk w = NoFollowWalk.open(root, null)) {
            for (Path p : root.relativize(parent)) if (!p.toString().isEmpty()) w.enter(p.toString(), given);
            w.makeDirectory(c, given);
        } catch (FileRefusal raced) {
            throw new UnsafePathException(field, given, raced.kind().words() + " in the path after it was checked; no folder made");
        }
    }

    private static BasicFileAttributes lstat(Path p) throws IOException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
