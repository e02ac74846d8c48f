package dev.crucible.cli.run;

import dev.crucible.files.DeepPaths;
import dev.crucible.verifier.sandbox.DiskVolume;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves an attempt's folders off its {@link DiskVolume} before the volume goes, so that a person still finds
 * the workspace in {@code sandbox/} after the run, without the host ever holding much more than the limit:
 * each file is copied in 16 MiB pieces, each piece copied is punched out of the volume's file, and the volume is
 * trimmed (its image gives the blocks back) before the bytes moved since the last trim could take the host past the
 * limit ({@link Trims}). Runs of zeros stay holes in the copy.
 * Links are kept as links (never followed); FIFOs, sockets, devices and folders nested too deep to name ({@link DeepPaths})
 * are not kept (listed in {@code not-kept.txt}). The agent has ended by then: nothing changes the tree while it is moved.
 */
final class VolumeKeeper {
    /** Lines of not-kept.txt at most (the rest counted in its last line). */
    static final int NOT_KEPT_LINES = 10_000;

    static final String KEPT = ".sandbox-kept";
    static final long PIECE = 16L << 20;
    private static final int BLOCK = 64 << 10;
    private static final ByteBuffer ZERO = ByteBuffer.allocate(BLOCK).asReadOnlyBuffer();

    private VolumeKeeper() {}

    /**
     * Moves the volume's tree (but {@code state}, deleted first) to the attempt's {@code .sandbox-kept}, one folder at a
     * time: no folder or file of the volume is held open while it is trimmed (an image volume is unmounted to compact it).
     * Returns the trims it took.
     */
    static int keep(DiskVolume volume, AttemptDir dir, String state) {
        return keep(volume, dir, state, System.nanoTime() + AttemptScratch.CLEANUP.toNanos(), left -> { });
    }

    /**
     * As above, ending by {@code deadlineNanos} (System.nanoTime()): an agent's tree of millions of entries, or one on a slow
     * volume, would otherwise hold the CLI for as long as it takes. The state folder gets a quarter of the time; what is
     * not removed by then is skipped and goes with the volume ({@code left} is told where). The walk stops at the deadline:
     * the rest is listed in {@code not-kept.txt} as gone with the volume.
     */
    static int keep(DiskVolume volume, AttemptDir dir, String state, long deadlineNanos, java.util.function.Consumer<String> left) {
        Path from = volume.mountPoint();
        Path to = dir.root().resolve(KEPT);
        List<String> notKept = new ArrayList<>();
        // a file with hard links is moved once and linked for its other names: moving each name would punch the
        // shared data out from under the names still to come (and copy it once per name)
        Map<Object, Path> movedInodes = new HashMap<>();
        List<Path> folders = new ArrayList<>(); // their modes and owners are set last, once nothing more goes in them
        Path stateDir = from.resolve(state);
        String stateLeft = dev.crucible.verifier.pristine.TreeCopy.delete(stateDir, Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()) / 4));
        if (stateLeft != null) left.accept("state folder " + stateLeft);
        Trims trims = Trims.afterTrim(volume);
        try {
            String old = dev.crucible.verifier.pristine.TreeCopy.delete(to, Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()) / 4));
            if (old != null) left.accept("an earlier kept copy " + old);
            Files.createDirectories(to);
            Deque<Path> pending = new ArrayDeque<>(List.of(from));
            walk:
            while (!pending.isEmpty()) {
                Path d = pending.pop();
                folders.add(d);
                List<Path> entries;
                try (var list = Files.list(d)) {
                    entries = list.sorted().toList();
                } catch (IOException e) {
                    notKept.add(from.relativize(d) + "/ (" + e.getMessage() + ")");
                    continue;
                }
                for (Path f : entries) {
                    if (System.nanoTime() > deadlineNanos) {
                        notKept.add("(the rest, from " + from.relativize(f) + " on: not moved within the cleanup's time"
                                + " bound; it went with the volume)");
                        left.accept("workspace: the rest, from " + from.relativize(f) + " on, was not moved off the volume within the cleanup's"
                                + " time bound and went with it (" + dir.root().resolve("not-kept.txt") + ")");
                        break walk;
                    }
                    if (f.equals(stateDir)) continue; // what is left of it goes with the volume
                    Path t = dev.crucible.files.BytePaths.under(to, from.relativize(f)); // by bytes: a name not UTF-8 is kept too
                    try {
                        BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                        if (a.isDirectory() && DeepPaths.tooDeep(from.relativize(f))) {
                            notKept.add(DeepPaths.line(from.relativize(f).toString())); // no copy of it could be named; it goes with the volume
                        } else if (a.isDirectory()) {
                            Files.createDirectories(t);
                            pending.push(f);
                        } else if (a.isSymbolicLink()) {
                            Files.createSymbolicLink(t, Files.readSymbolicLink(f));
                            sameOwner(f, t);
                        } else if (!a.isRegularFile()) {
                            notKept.add(from.relativize(f) + " (not a regular file, folder or link)");
                        } else if (a.fileKey() != null && movedInodes.containsKey(a.fileKey())) {
                            Files.createLink(t, movedInodes.get(a.fileKey()));
                            Files.delete(f);
                            trims.moved(a.size()); // its data goes with its last name: counted at each (more trims, never fewer)
                        } else {
                            boolean linked = ((Number) Files.getAttribute(f, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).intValue() > 1;
                            move(f, t, trims, linked);
                            if (linked && a.fileKey() != null) movedInodes.put(a.fileKey(), t);
                        }
                    } catch (IOException e) {
                        notKept.add(from.relativize(f) + " (" + e.getMessage() + ")");
                    }
                }
            }
            for (int i = folders.size() - 1; i >= 0; i--) {
                Path d = folders.get(i);
                Path t = dev.crucible.files.BytePaths.under(to, from.relativize(d));
                Files.setPosixFilePermissions(t, Files.getPosixFilePermissions(d, LinkOption.NOFOLLOW_LINKS));
                sameOwner(d, t);
            }
        } catch (IOException | RuntimeException e) {
            notKept.add("(the rest: " + e.getMessage() + ")");
        }
        if (!notKept.isEmpty()) {
            try {
                // its first lines: 150,000 FIFOs made it 73 MB on the host's disk, outside the volume (host round 8, case 29)
                List<String> listed = notKept.size() <= NOT_KEPT_LINES ? notKept : new ArrayList<>(notKept.subList(0, NOT_KEPT_LINES));
                if (listed != notKept) listed.add("(and " + (notKept.size() - NOT_KEPT_LINES) + " more not kept, not listed)");
                dev.crucible.files.OutputFolder.replace(dir.root().resolve("not-kept.txt"), String.join("\n", listed) + "\n");
            } catch (IOException ignored) {
                // the list is a courtesy; the run's result does not depend on it
            }
        }
        return trims.done();
    }

    /** After the volume is unmounted: the kept tree takes the sandbox folder's place (left as .sandbox-kept if that is not empty). */
    static void finish(AttemptDir dir) {
        Path kept = dir.root().resolve(KEPT);
        if (!Files.isDirectory(kept, LinkOption.NOFOLLOW_LINKS)) return;
        try {
            Files.deleteIfExists(dir.sandbox());
            Files.move(kept, dir.sandbox(), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // still mounted (a lazy unmount) or not empty: the copy stays beside it under its own name
        }
    }

    /**
     * When to trim. The host holds the volume's image plus the copy: right after a trim the image holds about what the volume
     * uses ({@code used}), and each byte moved since adds one to the copy while the image keeps its block until the next
     * trim, so the host holds {@code used + untrimmed}. Trimming once {@code untrimmed} reaches {@code bytes - used} (less a
     * margin for the file system's own blocks) keeps that at the limit; a full volume trims every piece, as before, and a
     * small kept tree is moved with no trim at all (a fuse2fs image is unmounted, checked and mounted again for each).
     */
    static final class Trims {
        private final DiskVolume volume;
        private final long budget;
        private long untrimmed;
        private int done;

        private Trims(DiskVolume volume, long budget) {
            this.volume = volume;
            this.budget = budget;
        }

        /**
         * Trims now, then allows what the volume's free room allows. Its use is read before the trim, which does not change it:
         * a volume just mounted again (fuse2fs, compacted) may not answer statvfs yet. No figure (0): a trim every piece.
         */
        static Trims afterTrim(DiskVolume volume) {
            long used = volume.used();
            volume.trim();
            long budget = used <= 0 ? PIECE : Math.max(PIECE, volume.bytes() - used - 2 * PIECE);
            return new Trims(volume, budget).counted();
        }

        /** A trim every piece (what the image holds is not known: it was not trimmed first). */
        static Trims everyPiece(DiskVolume volume) { return new Trims(volume, PIECE); }

        private Trims counted() {
            done++;
            return this;
        }

        /** {@code n} more bytes are off the volume (punched or deleted) but still in its image. */
        void moved(long n) {
            untrimmed += n;
            if (untrimmed < budget) return;
            volume.trim();
            done++;
            untrimmed = 0;
        }

        /** Trims done so far (the first included). */
        int done() { return done; }
    }

    /**
     * Copies {@code f} to {@code t} piece by piece, each piece punched out of {@code f} once copied and counted by {@code trims},
     * then deletes {@code f}.
     */
    static void move(Path f, Path t, DiskVolume volume) throws IOException { move(f, t, Trims.everyPiece(volume), false); }

    /**
     * The source, read-write where allowed: that open never blocks on a FIFO swapped in since the walk (a read-only one waits
     * for a writer, for good: CI of 5aec33ef, HostileReadersTest's flipping file); read-only where writing is refused (a 0444
     * file of a user who is not root), and nothing is written either way.
     */
    private static FileChannel openSource(Path f) throws IOException {
        try {
            return FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException gone) {
            throw gone;
        } catch (java.nio.file.FileSystemException refused) {
            return FileChannel.open(f, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        }
    }

    /** As above; {@code keepSource}: its data is not punched out piece by piece (other names share it), only its name goes. */
    static void move(Path f, Path t, Trims trims, boolean keepSource) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(BLOCK);
        long pos = 0;
        long pieceStart = 0;
        long size;
        // a large file with no block allocated is all hole (truncate -s 2G): its copy is its length, nothing is read
        if (Files.size(f) >= PIECE && allocatedBlocks(f) == 0) {
            pos = Files.size(f);
            pieceStart = pos; // nothing moved: nothing for the host to give back
        }
        boolean pieceData = false; // whether the piece put any byte in the copy: one of only zeros (a hole) costs the host nothing
        try (FileChannel out = FileChannel.open(t, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            do {
                // the source is opened for one piece at a time: an image volume is unmounted to be trimmed
                try (FileChannel in = openSource(f)) {
                    in.position(pos); // lseek: a FIFO swapped in since the walk fails here ("Illegal seek"), not read
                    size = in.size();
                    while (pos < size && pos - pieceStart < PIECE) {
                        buf.clear();
                        int n = in.read(buf, pos);
                        if (n <= 0) {
                            size = pos;
                            break;
                        }
                        buf.flip();
                        if (!zeros(buf)) {
                            pieceData = true;
                            while (buf.hasRemaining()) out.write(buf, pos + buf.position());
                        }
                        pos += n;
                    }
                }
                if (!keepSource && pieceData && pos - pieceStart >= PIECE && pos < size) {
                    punch(f, pieceStart, pos - pieceStart);
                    trims.moved(pos - pieceStart);
                    pieceStart = pos;
                    pieceData = false;
                } else if (pos - pieceStart >= PIECE) {
                    // its data stays (other names share it), or it held only zeros (the copy has a hole there, so the host holds
                    // no more than before: a 2 GiB sparse file once took 128 punches): nothing to give back yet
                    pieceStart = pos;
                    pieceData = false;
                }
            } while (pos < size);
            if (out.size() < pos) out.write(ByteBuffer.wrap(new byte[1]), pos - 1); // a file ending in zeros keeps its length
        } catch (IOException e) {
            Files.deleteIfExists(t); // not kept: no part copy in its place
            throw e;
        }
        sameOwner(f, t); // before the mode: a change of owner would clear it
        Files.setPosixFilePermissions(t, Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS));
        Files.setLastModifiedTime(t, Files.getLastModifiedTime(f, LinkOption.NOFOLLOW_LINKS));
        Files.delete(f);
        trims.moved(pos - pieceStart);
    }

    /**
     * The copy keeps the owner of what the agent made (the box's uid, never root's): the kept tree is root's
     * otherwise, and a person or a later tool would then find the agent's files owned by root on the host.
     * Set-id bits are never copied (POSIX permissions carry none).
     */
    private static void sameOwner(Path from, Path to) throws IOException {
        Files.setAttribute(to, "unix:uid", Files.getAttribute(from, "unix:uid", LinkOption.NOFOLLOW_LINKS), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(to, "unix:gid", Files.getAttribute(from, "unix:gid", LinkOption.NOFOLLOW_LINKS), LinkOption.NOFOLLOW_LINKS);
    }

    /** Whether {@code b}'s remaining bytes are all zero: compared with {@link #ZERO} (vectorized; a byte loop took most of a sparse file's move). */
    private static boolean zeros(ByteBuffer b) {
        return b.mismatch(ZERO.duplicate().limit(b.remaining())) == -1;
    }

    /** Blocks allocated to {@code f} (st_blocks: Java has no attribute for it); -1 when unknown. */
    private static long allocatedBlocks(Path f) {
        try {
            Process p = new ProcessBuilder("stat", "-c", "%b", "--", f.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 ? Long.parseLong(out) : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static void punch(Path f, long offset, long length) {
        DiskVolume.run(List.of("fallocate", "--punch-hole", "--offset", Long.toString(offset), "--length", Long.toString(length), f.toString()));
    }
}
