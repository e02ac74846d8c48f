package dev.crucible.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.concurrent.TimeUnit;

/**
 * Copies one regular file of untrusted origin so that holes stay holes: {@code truncate -s 3G} in a
 * workspace must not become 3 GiB of host disk in a copy. The JDK's {@code Files.copy} writes every
 * hole out as zeros, and Java has no {@code SEEK_DATA}, so:
 *
 * <ul>
 * <li>files up to {@link #JAVA_MAX} are read here and only their non-zero 4 KiB blocks are written (the
 *     destination's size is set at the end, so skipped blocks stay holes). Reading that much is cheap;</li>
 * <li>larger files go to GNU {@code cp --sparse=always}, which walks the source's data extents with
 *     {@code SEEK_DATA}/{@code SEEK_HOLE} (so a 1 TiB hole costs nothing to read) and also turns runs of
 *     zeros into holes. It runs with {@code -R}, which copies a FIFO or device by making a new one
 *     instead of opening it, so a file swapped for a FIFO cannot stall it; a destination that is not a
 *     regular file afterwards is removed and refused. Where {@code cp} is missing or refuses the options
 *     (busybox), the Java path copies it.</li>
 * </ul>
 *
 * The source is checked with lstat and opened without following links; callers copy while no agent
 * process runs (Java cannot open without blocking, and a FIFO swapped in after the check would block
 * the open). Reads stop at the size lstat gave, so a file that grows while copied cannot make the copy
 * grow with it. The destination's permission bits are the source's.
 */
public final class SparseFiles {
    /** Files larger than this are copied with {@code cp --sparse=always}. */
    public static final long JAVA_MAX = 1 << 20;
    private static final int BLOCK = 4096;
    private static final long CP_TIMEOUT_S = 600;
    private static volatile Boolean cpWorks;

    private SparseFiles() {}

    /**
     * Copies regular file {@code src} to {@code dst} (replaced when it exists, never written through a
     * link) and returns the disk the copy's data takes, in bytes. An {@link IOException} names the file
     * when {@code src} is not a regular file.
     */
    public static long copy(Path src, Path dst) throws IOException {
        PosixFileAttributes a = Files.readAttributes(src, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile()) throw new NotCopiedException(src.toString(), a.isOther() ? FileKinds.specialReason(src) : "is " + FileKinds.of(src) + ", not a regular file");
        Files.deleteIfExists(dst); // a link there is removed, not written through
        long allocated = a.size() > JAVA_MAX && cpAvailable() ? withCp(src, dst, a.size()) : -1;
        if (allocated < 0) allocated = withJava(src, dst, a.size());
        Files.setPosixFilePermissions(dst, a.permissions());
        return allocated;
    }

    private static long withJava(Path src, Path dst, long size) throws IOException {
        long written = 0;
        try (FileChannel in = FileChannel.open(src, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
             FileChannel out = FileChannel.open(dst, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.allocate(16 * BLOCK);
            long pos = 0;
            while (pos < size) {
                buf.clear();
                if (size - pos < buf.capacity()) buf.limit((int) (size - pos));
                int n = in.read(buf, pos);
                if (n <= 0) break; // shrank while copied: the rest stays a hole
                for (int off = 0; off < n; off += BLOCK) {
                    int len = Math.min(BLOCK, n - off);
                    if (zero(buf.array(), off, len)) continue;
                    out.write(ByteBuffer.wrap(buf.array(), off, len), pos + off);
                    written += BLOCK;
                }
                pos += n;
            }
            // the size lstat gave, without writing: a trailing hole stays one (ftruncate only extends here)
            if (out.size() < size) {
                try (var raf = new java.io.RandomAccessFile(dst.toFile(), "rw")) {
                    raf.setLength(size);
                }
            }
        }
        return written;
    }

    private static boolean zero(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) if (b[i] != 0) return false;
        return true;
    }

    /** The allocated bytes of the copy, or -1 when cp could not do it (then nothing is left at {@code dst}). */
    private static long withCp(Path src, Path dst, long size) throws IOException {
        Process p = new ProcessBuilder("cp", "-R", "-P", "--sparse=always", "--reflink=never", "--no-target-directory", "--",
                src.toAbsolutePath().toString(), dst.toAbsolutePath().toString()).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readNBytes(4096), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(CP_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                TreeDelete.delete(dst);
                throw new IOException(src + ": copying " + size + " bytes took over " + CP_TIMEOUT_S + " s; not copied");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            TreeDelete.delete(dst);
            throw new IOException(src + ": interrupted while copied");
        }
        if (p.exitValue() != 0) {
            TreeDelete.delete(dst);
            if (!Files.isRegularFile(src, LinkOption.NOFOLLOW_LINKS)) throw new NotCopiedException(src.toString(), "changed while copied: " + out);
            return -1; // cp itself failed on a regular file: the Java path tries
        }
        if (!Files.isRegularFile(dst, LinkOption.NOFOLLOW_LINKS)) { // swapped for a FIFO, link or folder after the check
            TreeDelete.delete(dst);
            throw new NotCopiedException(src.toString(), "was replaced by something other than a regular file while copied; not copied");
        }
        Long du = CopyStats.allocated(dst);
        return du == null ? size : du;
    }

    /** Whether GNU cp with the sparse options is here (asked once: a busybox cp refuses them). */
    private static boolean cpAvailable() {
        Boolean ok = cpWorks;
        if (ok != null) return ok;
        try {
            Process p = new ProcessBuilder("cp", "--version").redirectErrorStream(true).start();
            String v;
            try (InputStream in = p.getInputStream()) {
                v = new String(in.readNBytes(256), StandardCharsets.UTF_8);
            }
            ok = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && v.contains("GNU coreutils");
        } catch (IOException e) {
            ok = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ok = false;
        }
        cpWorks = ok;
        return ok;
    }
}
