package dev.crucible.files;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

/**
 * Opens a link-free relative path one component at a time from a held directory: each component is
 * looked at with fstatat and opened with openat(O_NOFOLLOW) relative to its parent's descriptor
 * ({@link SecureDirectoryStream}), so no component anywhere in the path can be turned into a link
 * that the kernel follows, and what is opened is an entry of a directory held open inside the root.
 * Java cannot pass O_NONBLOCK: an entry swapped for a FIFO between the fstatat and the openat blocks
 * the open; {@link #opening} names it so that {@link BoundedRead} can release it ({@link #unstick}).
 */
final class NoFollowWalk implements Closeable {
    private static final Set<OpenOption> READ = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    private static final Set<OpenOption> READ_WRITE = Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

    private final Deque<SecureDirectoryStream<Path>> held = new ArrayDeque<>();
    private final Path rootPath;
    private Path dirPath;
    /** Test seams: run between an entry's fstatat and its open (file or directory), and after the open (to swap or delete it there). */
    static volatile Runnable beforeOpen;
    static volatile Runnable afterOpen;
    /** Escaped names by key, per directory listed for them in this walk ({@link #name}). */
    /** The entry an openat is waiting on, or null. */
    private volatile Pending opening;

    private record Pending(SecureDirectoryStream<Path> dir, Path name, long since) {}

    private NoFollowWalk(SecureDirectoryStream<Path> root, Path rootPath) {
        held.push(root);
        this.rootPath = rootPath;
        this.dirPath = rootPath;
    }

    /**
     * {@code root} is a real path the caller chose, and {@code rootKey} the identity (device and inode) it
     * had then: a root that was since replaced (a link, a FIFO, another folder put in its place) is refused,
     * checked on the opened descriptor itself (fstat), so no swap before the open can pass.
     */
    static NoFollowWalk open(Path root, Object rootKey) throws IOException {
        BasicFileAttributes a = Files.readAttributes(root, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) throw new FileRefusal(FileRefusal.Kind.RACED, root.toString(), "the root became a link");
        if (a.isOther()) throw new FileRefusal(kindOf(root), root.toString(), "in place of the root");
        if (!a.isDirectory()) throw new NoSuchFileException(root + ": not a directory");
        DirectoryStream<Path> ds = Files.newDirectoryStream(root);
        if (!(ds instanceof SecureDirectoryStream<Path> sds)) {
            ds.close();
            throw new IOException("this platform has no openat-based directory streams; reads of untrusted files are refused");
        }
        Object key = sds.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
        if (rootKey != null && !rootKey.equals(key)) {
            sds.close();
            throw new FileRefusal(FileRefusal.Kind.RACED, root.toString(), "the root was replaced since the reader was made");
        }
        return new NoFollowWalk(sds, root);
    }

    /** The held directory's path (for messages and mode lookups only; never opened by name). */
    Path dirPath() {
        return dirPath;
    }

    SecureDirectoryStream<Path> dir() {
        return held.peek();
    }

    /** Steps into {@code name}, which must be a directory now and when opened. */
    void enter(String name, String rel) throws IOException {
        Path n = name(name);
        BasicFileAttributes a = lstat(n);
        if (a == null) throw new NoSuchFileException(rel);
        refuseSpecial(a, n, rel);
        if (!a.isDirectory()) throw new NotDirectoryException(rel);
        Runnable before = beforeOpen;
        if (before != null) before.run();
        SecureDirectoryStream<Path> next = opened(n, rel, () -> dir().newDirectoryStream(n, LinkOption.NOFOLLOW_LINKS));
        held.push(next);
        dirPath = dirPath.resolve(name);
    }

    /**
     * The entry of the held directory that {@code key} names ({@link EntryNames}): the key itself, or for an
     * escaped key the name made from the bytes it stands for. Not by listing the folder: a read per file of a
     * folder of 30,000 such names listed it 30,000 times (blind host round 5, B2: the CLI's heap filled, no result).
     */
    Path name(String key) throws IOException {
        if (!EntryNames.escaped(key)) return Path.of(key);
        Path n = EntryNames.fromBytes(EntryNames.unescape(key));
        if (n == null || !EntryNames.key(n).equals(key)) throw new NoSuchFileException(key); // '/', NUL, '.', '..' or another spelling
        return n;
    }

    /**
     * Creates the folder {@code name} in the held directory without a path: Java has no mkdirat, so a fresh
     * folder is made under a random name in the root (the caller's own path) and renamed into the held
     * directory with renameat from the root's descriptor to the held one. Whatever an agent did to the temporary
     * folder meanwhile (a link put in its place) lands inside the root, where every later open refuses it.
     * An entry of that name already there (other than an empty folder, which is replaced) fails the rename:
     * {@link java.nio.file.FileAlreadyExistsException}, for the caller to look at it again.
     */
    void makeDirectory(String name, String rel) throws IOException {
        Path tmp = Path.of(".crucible-mkdir-" + java.util.UUID.randomUUID());
        Files.createDirectory(rootPath.resolve(tmp));
        SecureDirectoryStream<Path> root = held.peekLast();
        try {
            root.move(tmp, dir(), Path.of(name));
        } catch (IOException e) {
            try {
                root.deleteDirectory(tmp);
            } catch (IOException gone) {
                // the agent removed or replaced it: nothing of ours is left there
            }
            if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null
                    && (f.getReason().contains("not empty") || f.getReason().contains("Not a directory") || f.getReason().contains("exists"))) {
                throw new java.nio.file.FileAlreadyExistsException(rel);
            }
            throw e;
        }
    }

    /** Steps back out of the directory last entered. */
    void leave() throws IOException {
        if (held.size() <= 1) throw new IllegalStateException("already at the root");
        held.pop().close();
        dirPath = dirPath.getParent();
    }

    /** Steps back out to the root (between the files of one batch). */
    void toRoot() throws IOException {
        while (held.size() > 1) leave();
    }

    /** fstatat(AT_SYMLINK_NOFOLLOW) of an entry of the held directory; null when absent. */
    BasicFileAttributes lstat(Path name) throws IOException {
        try {
            return dir().getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /**
     * Opens a regular file of the held directory for reading. After the open, lseek must work (a FIFO
     * swapped in answers ESPIPE); the caller reads at most the size fstat gives the open file, so a
     * device, whose size is 0, yields nothing.
     */
    SeekableByteChannel openFile(String name, String rel) throws IOException {
        Path n = name(name);
        BasicFileAttributes a = lstat(n);
        if (a == null) throw new NoSuchFileException(rel);
        refuseSpecial(a, n, rel);
        if (!a.isRegularFile()) throw new NoSuchFileException(rel + ": not a regular file");
        Runnable before = beforeOpen;
        if (before != null) before.run();
        SeekableByteChannel ch = opened(n, rel, () -> dir().newByteChannel(n, READ));
        try {
            ch.position();
        } catch (IOException espipe) {
            ch.close();
            throw new FileRefusal(FileRefusal.Kind.RACED, rel, "became a FIFO or socket between the check and the open");
        }
        Runnable after = afterOpen;
        if (after != null) after.run();
        return ch;
    }

    private interface Open<T> {
        T run() throws IOException;
    }

    private <T> T opened(Path n, String rel, Open<T> open) throws IOException {
        opening = new Pending(dir(), n, System.nanoTime());
        try {
            return open.run();
        } catch (FileRefusal e) {
            throw e;
        } catch (IOException e) {
            // ELOOP from O_NOFOLLOW: Java words it "Too many levels of symbolic links ..."
            if (e.getMessage() != null && e.getMessage().contains("symbolic link")) {
                throw new FileRefusal(FileRefusal.Kind.RACED, rel, "became a link between the check and the open");
            }
            throw e;
        } finally {
            opening = null;
        }
    }

    /** The refusal for a link or special file where a file or directory was expected. */
    private void refuseSpecial(BasicFileAttributes a, Path n, String rel) throws FileRefusal {
        if (a.isSymbolicLink()) throw new FileRefusal(FileRefusal.Kind.RACED, rel, "became a link after its links were resolved");
        if (a.isOther()) throw new FileRefusal(kindOf(dirPath.resolve(n)), rel, null);
    }

    /** FIFO, device or socket, from the mode bits (lstat by path: only the kind is learnt, after the refusal is certain). */
    static FileRefusal.Kind kindOf(Path p) {
        try {
            int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return switch (mode & 0170000) {
                case 0010000 -> FileRefusal.Kind.FIFO;
                case 0020000, 0060000 -> FileRefusal.Kind.DEVICE;
                case 0140000 -> FileRefusal.Kind.SOCKET;
                default -> FileRefusal.Kind.SPECIAL;
            };
        } catch (IOException | RuntimeException e) {
            return FileRefusal.Kind.SPECIAL;
        }
    }

    /** How long the open in progress has waited (0 when none is): an open of a checked entry is instant unless a FIFO was swapped in. */
    long blockedNanos(long now) {
        Pending p = opening;
        return p == null ? 0 : now - p.since();
    }

    /**
     * Releases an openat blocked on a FIFO from another thread: opening the same entry read-write
     * never blocks on Linux (fifo(7)) and counts as the writer the blocked reader waits for; it is
     * closed at once, without writing. Returns whether an open was pending.
     */
    boolean unstick() {
        Pending p = opening;
        if (p == null) return false;
        try {
            p.dir().newByteChannel(p.name(), READ_WRITE).close();
        } catch (IOException | RuntimeException e) {
            // gone, a link, or not writable: the blocked thread is counted as stalled
        }
        return true;
    }

    @Override
    public void close() {
        while (!held.isEmpty()) {
            try {
                held.pop().close();
            } catch (IOException ignored) {
                // a directory descriptor that will not close is released with the thread
            }
        }
    }
}
