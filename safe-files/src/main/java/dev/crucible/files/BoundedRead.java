package dev.crucible.files;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads of files an untrusted party controls (an agent's workspace and its .git), for host code that
 * must neither be misled nor stalled by them:
 * <ul>
 * <li>contained: links are expanded by {@link ContainedRoot} (one that stays inside is followed, one
 * that leaves or loops is {@link FileRefusal.Kind#LINK_OUT}); the link-free result is then opened one
 * component at a time with openat(O_NOFOLLOW) from held directories ({@link NoFollowWalk}), so a
 * component swapped for a link meanwhile makes the open fail instead of leading out;</li>
 * <li>typed: FIFOs, devices and sockets are refused from fstatat before any open; after the open,
 * lseek must work (a FIFO swapped in fails it) and at most the size fstat gives the open file is read
 * (a device swapped in has size 0 and yields nothing);</li>
 * <li>bounded: every read has a byte bound and runs on a worker thread with a deadline. An open that a
 * FIFO swapped in at the last moment blocks (Java cannot pass O_NONBLOCK) is released by opening the
 * same entry read-write, which never blocks on Linux and is the writer the open waits for; a worker that
 * is still blocked is abandoned and counted, and once {@link #MAX_STALLED} are under one root, reads under
 * it are refused at
 * once, so a caller never waits longer than its deadline.</li>
 * </ul>
 * Absent files (or a link inside the root that dangles) read as null.
 */
public final class BoundedRead {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** Abandoned workers the process tolerates before it refuses reads outright. */
    static final int MAX_STALLED = 8;
    /** Abandoned workers of all roots together: a bound on the threads one process can lose. */
    static final int MAX_STALLED_ALL = 256;
    /** How long a released open gets to finish before its worker counts as stalled. */
    private static final long GRACE_MS = 200;
    /** How often a waiting caller looks at its worker. */
    private static final long POLL_MS = 50;
    /** A whole-tree listing's limit: it makes progress entry by entry; only an open can be blocked, and that is watched on its own. */
    private static final long TREE_MS = 120_000;
    /** Extra time for large reads: a deadline must not refuse an honest big file on a slow disk. */
    private static final long BYTES_PER_MS = 32 << 10;
    /** As deep as a path can go in PATH_MAX; one descriptor per level is held, as Files.walkFileTree does. */
    private static final int MAX_DEPTH = 2048;
    private static final AtomicInteger STALLED_NOW = new AtomicInteger();
    /** Per root, so that one agent's FIFOs never make another attempt's reads refused (and its monitor report them). */
    private static final java.util.concurrent.ConcurrentHashMap<Path, AtomicInteger> STALLED_BY_ROOT = new java.util.concurrent.ConcurrentHashMap<>();
    /** Of those, the ones abandoned with an open blocked (hostile); the rest were only slow. */
    private static final java.util.concurrent.ConcurrentHashMap<Path, AtomicInteger> HUNG_BY_ROOT = new java.util.concurrent.ConcurrentHashMap<>();
    private static final ExecutorService WORKERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
        // a tree walk recurses once per folder level, down to MAX_DEPTH: the default 1 MiB stack overflowed at ~1000 (rt34 deep-dirs)
        Thread t = new Thread(null, r, "crucible-bounded-read", 32L << 20);
        t.setDaemon(true);
        return t;
    });

    private final ContainedRoot root;
    private final Object rootKey;
    private final Duration timeout;

    private BoundedRead(ContainedRoot root, Object rootKey, Duration timeout) {
        this.root = root;
        this.rootKey = rootKey;
        this.timeout = timeout;
    }

    /**
     * Reads under {@code root}, a directory trusted now ({@code name} is what messages call it): its real
     * path and identity are taken here, and a read after it was replaced is refused ({@link FileRefusal.Kind#RACED}).
     */
    public static BoundedRead of(Path root, String name) throws IOException {
        ContainedRoot r = ContainedRoot.of(root, name);
        Object key = Files.readAttributes(r.root(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        return new BoundedRead(r, key, DEFAULT_TIMEOUT);
    }

    public BoundedRead withTimeout(Duration t) {
        return new BoundedRead(root, rootKey, t);
    }

    /** The root's real path, as taken by {@link #of}. */
    public Path root() {
        return root.root();
    }

    /** The root's identity (device and inode) when the reader was made. */
    public Object rootKey() {
        return rootKey;
    }

    /** Readers whose workers are blocked for good right now (for tests and diagnostics). */
    public static int stalledNow() {
        return STALLED_NOW.get();
    }

    /** The whole file, or null when absent; a file over {@code max} bytes is {@link FileRefusal.Kind#TOO_BIG}. */
    public byte[] read(String rel, long max) throws IOException {
        return timed(rel, readMs(max), w -> {
            try (SeekableByteChannel ch = file(w, rel)) {
                long size = ch.size();
                if (size > max) throw new FileRefusal(FileRefusal.Kind.TOO_BIG, rel, size + " bytes, bound " + max);
                return fill(ch, (int) size);
            }
        });
    }

    /**
     * {@link #read} of many files in one worker task (one hand-off instead of one per file): each maps to
     * its bytes, to null when absent, or to its {@link FileRefusal}. A refusal of the whole batch (stalled,
     * or the root replaced) is thrown.
     */
    public Map<String, Object> readMany(Collection<String> rels, long maxEach) throws IOException {
        List<String> todo = List.copyOf(rels);
        String first = todo.isEmpty() ? "" : todo.get(0);
        Map<String, Object> out = new java.util.HashMap<>();
        timed(first, readMs(maxEach * Math.min(todo.size(), 64)) + 10L * todo.size(), w -> {
            for (String rel : todo) {
                try (SeekableByteChannel ch = file(w, rel)) {
                    long size = ch.size();
                    if (size > maxEach) throw new FileRefusal(FileRefusal.Kind.TOO_BIG, rel, size + " bytes, bound " + maxEach);
                    out.put(rel, fill(ch, (int) size));
                } catch (FileRefusal r) {
                    out.put(rel, r);
                } catch (NoSuchFileException | NotDirectoryException absent) {
                    out.put(rel, null);
                } catch (IOException e) {
                    out.put(rel, null); // unreadable: as absent, the next scan tries again
                } finally {
                    w.toRoot();
                }
            }
            return Boolean.TRUE;
        });
        return out;
    }

    /** At most the first {@code max} bytes, or null when absent. */
    public byte[] head(String rel, int max) throws IOException {
        return timed(rel, readMs(max), w -> {
            try (SeekableByteChannel ch = file(w, rel)) {
                return fill(ch, (int) Math.min(ch.size(), max));
            }
        });
    }

    /** SHA-256 (hex) of the file, or null when absent; streamed, at most {@code max} bytes. */
    public String sha256(String rel, long max) throws IOException {
        return timed(rel, readMs(max), w -> {
            try (SeekableByteChannel ch = file(w, rel)) {
                long size = ch.size();
                if (size > max) throw new FileRefusal(FileRefusal.Kind.TOO_BIG, rel, size + " bytes, bound " + max);
                MessageDigest md = sha256();
                ByteBuffer buf = ByteBuffer.allocate(65536);
                long left = size;
                while (left > 0) {
                    buf.clear().limit((int) Math.min(buf.capacity(), left));
                    int n = ch.read(buf);
                    if (n <= 0) break;
                    md.update(buf.array(), 0, n);
                    left -= n;
                }
                return HexFormat.of().formatHex(md.digest());
            }
        });
    }

    /**
     * The entries of a directory by name, each as lstat sees it (links are not followed), or null when
     * the directory is absent; more than {@code max} entries is {@link FileRefusal.Kind#TOO_BIG}.
     * {@code rel} "" is the root.
     */
    public Map<String, BasicFileAttributes> list(String rel, int max) throws IOException {
        return timed(rel, readMs(max * 256L), w -> {
            ReadPaths.enterDir(root, w, rel);
            Map<String, BasicFileAttributes> out = new TreeMap<>();
            ReadPaths.entries(w, "", rel, max, 1, Set.of(), out);
            return out;
        });
    }

    /**
     * Every entry below a directory, by path relative to it (directories are entered, links are not),
     * or null when it is absent; more than {@code max} entries is {@link FileRefusal.Kind#TOO_BIG}.
     */
    public Map<String, BasicFileAttributes> tree(String rel, int max) throws IOException {
        return tree(rel, max, Set.of());
    }

    /** As {@link #tree(String, int)}, not entering directories named in {@code skipDirs} (they are still listed). */
    public Map<String, BasicFileAttributes> tree(String rel, int max, Set<String> skipDirs) throws IOException {
        return timed(rel, TREE_MS, w -> {
            ReadPaths.enterDir(root, w, rel);
            Map<String, BasicFileAttributes> out = new TreeMap<>();
            ReadPaths.entries(w, "", rel, max, MAX_DEPTH, skipDirs, out);
            return out;
        });
    }

    /** lstat of the entry itself (a final link is not followed; links before it are, inside the root), or null. */
    public BasicFileAttributes lstat(String rel) throws IOException {
        return timed(rel, readMs(0), w -> {
            String last = ReadPaths.into(root, w, rel, false);
            return last == null ? w.lstat(Path.of(".")) : w.lstat(w.name(last));
        });
    }

    /** Opens the file {@code rel} names, after its in-root links are expanded. */
    private SeekableByteChannel file(NoFollowWalk w, String rel) throws IOException {
        String last = ReadPaths.into(root, w, rel, true);
        if (last == null) throw new NoSuchFileException(rel + ": the root itself");
        return w.openFile(last, rel);
    }

    private static byte[] fill(SeekableByteChannel ch, int size) throws IOException {
        byte[] b = new byte[size];
        ByteBuffer buf = ByteBuffer.wrap(b);
        while (buf.hasRemaining()) {
            if (ch.read(buf) <= 0) break; // shrank while read: what was there
        }
        return buf.position() == size ? b : Arrays.copyOf(b, buf.position());
    }

    /**
     * A read's limit in all: twice the timeout (an open released at the timeout still finishes within it),
     * plus time for its size on a slow disk.
     */
    private long readMs(long bytes) {
        return 2 * timeout.toMillis() + GRACE_MS + bytes / BYTES_PER_MS;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private interface Op<T> {
        T run(NoFollowWalk w) throws IOException;
    }

    /**
     * Runs {@code op} on a worker. An open that has waited longer than the timeout (only a FIFO swapped
     * in after its check does) is released ({@link NoFollowWalk#unstick}); one still waiting
     * {@link #GRACE_MS} later, or an operation past {@code hardMs} in all, is abandoned and refused as
     * {@link FileRefusal.Kind#STALLED}. Absent (NoSuchFile, not a directory) is null.
     */
    private <T> T timed(String rel, long hardMs, Op<T> op) throws IOException {
        AtomicInteger mine = STALLED_BY_ROOT.computeIfAbsent(root.root(), k -> new AtomicInteger());
        int stalled = mine.get();
        AtomicInteger hungHere = HUNG_BY_ROOT.computeIfAbsent(root.root(), k -> new AtomicInteger());
        if (stalled >= MAX_STALLED || STALLED_NOW.get() >= MAX_STALLED_ALL) {
            // hostile only if one of those was an open the file blocked; reads that were merely slow say so
            throw new FileRefusal(hungHere.get() > 0 ? FileRefusal.Kind.STALLED : FileRefusal.Kind.SLOW, rel,
                    Math.max(stalled, STALLED_NOW.get()) + " earlier reads are still blocked; refused without trying");
        }
        AtomicReference<NoFollowWalk> walk = new AtomicReference<>();
        AtomicInteger state = new AtomicInteger(); // 0 running, 1 done, 2 abandoned slow, 3 abandoned with an open blocked
        Future<T> f = WORKERS.submit(() -> {
            try (NoFollowWalk w = NoFollowWalk.open(root.root(), rootKey)) {
                walk.set(w);
                return op.run(w);
            } catch (NoSuchFileException | NotDirectoryException absent) {
                return null;
            } finally {
                int was = state.getAndSet(1);
                if (was >= 2) {
                    STALLED_NOW.decrementAndGet();
                    mine.decrementAndGet();
                    if (was == 3) hungHere.decrementAndGet();
                }
            }
        });
        long start = System.nanoTime();
        long openLimit = timeout.toNanos();
        long poll = Math.max(1, Math.min(POLL_MS, timeout.toMillis()));
        try {
            while (true) {
                try {
                    return f.get(poll, TimeUnit.MILLISECONDS);
                } catch (TimeoutException notYet) {
                    long now = System.nanoTime();
                    NoFollowWalk w = walk.get();
                    long blocked = w == null ? 0 : w.blockedNanos(now);
                    if (blocked > openLimit) w.unstick();
                    // hung: an open of the file's blocked (only a FIFO swapped in does that). A worker that has not even
                    // opened the root yet, or an op past its deadline with no open blocked, is a slow machine: the blind host
                    // round saw an honest run at load 45 flagged grader-tampering for a plain file read that way
                    boolean hung = blocked > openLimit + TimeUnit.MILLISECONDS.toNanos(GRACE_MS);
                    boolean late = (w == null && now - start > openLimit + TimeUnit.MILLISECONDS.toNanos(GRACE_MS))
                            || now - start > TimeUnit.MILLISECONDS.toNanos(hardMs);
                    if (hung || late) {
                        f.cancel(true); // a blocked read() is interrupted (its channel closes); a blocked open is not
                        if (state.compareAndSet(0, hung ? 3 : 2)) {
                            STALLED_NOW.incrementAndGet();
                            mine.incrementAndGet();
                            if (hung) hungHere.incrementAndGet();
                        }
                        throw new FileRefusal(hung ? FileRefusal.Kind.STALLED : FileRefusal.Kind.SLOW, rel, (hung ? "an open blocked for " : "no answer in ")
                                + TimeUnit.NANOSECONDS.toMillis(hung ? blocked : now - start) + " ms");
                    }
                }
            }
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) throw io;
            if (c instanceof UncheckedIOException u) throw u.getCause();
            if (c instanceof RuntimeException r) throw r;
            if (c instanceof StackOverflowError) throw new FileRefusal(FileRefusal.Kind.TOO_BIG, rel, "folders nested too deep to walk");
            if (c instanceof Error err) throw err;
            throw new IOException(c);
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading " + rel);
        } catch (java.util.concurrent.CancellationException e) {
            throw new InterruptedIOException("cancelled while reading " + rel);
        }
    }
}
