package dev.crucible.cli.snapshot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * dd-like sequential write with fsync into a directory: the disk bandwidth that snapshot dump
 * and restore speeds are compared against (same file system, same run).
 */
public final class DiskBandwidth {

    /**
     * 1 MiB writes, like dd bs=1M. Larger blocks are pathological on this VM: 8 MiB write()s ran
     * 7x slower than 1 MiB ones (2.8 s vs 0.36 s for 256 MiB into the page cache).
     */
    private static final int BLOCK = 1 << 20;

    private DiskBandwidth() {
    }

    /**
     * MiB/s at which this machine hands out fresh memory (allocate + zero a direct buffer): the cap
     * on CRIU restore, which reads every page into newly mapped memory. On a VM whose guest memory
     * is backed lazily this is far below memory bandwidth (about 320 MiB/s measured here).
     */
    public static double freshMemory(long mib) {
        long t0 = System.nanoTime();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocateDirect((int) Math.min(mib << 20, 1L << 30));
        double secs = (System.nanoTime() - t0) / 1e9;
        return (b.capacity() >> 20) / secs;
    }

    /** MiB/s for writing {@code mib} MiB of incompressible data and fsyncing it; the file is removed. */
    public static double measure(Path dir, long mib) throws IOException {
        Path f = Files.createTempFile(dir, "crucible-disk-bench", ".bin");
        byte[] data = new byte[BLOCK];
        ThreadLocalRandom.current().nextBytes(data);
        ByteBuffer buf = ByteBuffer.wrap(data);
        long total = mib << 20;
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            long t0 = System.nanoTime();
            for (long written = 0; written < total; ) {
                buf.clear().limit((int) Math.min(BLOCK, total - written));
                while (buf.hasRemaining()) {
                    written += ch.write(buf);
                }
            }
            ch.force(true);
            return mib / ((System.nanoTime() - t0) / 1e9);
        } finally {
            Files.deleteIfExists(f);
        }
    }
}
