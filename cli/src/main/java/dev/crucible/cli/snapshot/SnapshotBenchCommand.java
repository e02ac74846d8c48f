package dev.crucible.cli.snapshot;

import dev.crucible.snapshot.criu.CriuBinary;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code crucible snapshot bench --sizes 256,1024,4096}: per size, one line
 * {@code size_mib=… freeze_ms=… dump_mib_s=… restore_mib_s=… disk_mib_s=…} (then extra fields).
 * <ul>
 *   <li>freeze_ms: time the workload is frozen for the final dump after iterative pre-dumps, while it
 *       keeps dirtying a small set (--dirty-kib every 10 ms);</li>
 *   <li>dump_mib_s: a full dump (no pre-dump) of the whole image, fsync of the images included;</li>
 *   <li>restore_mib_s: criu restore of that full image from a cold page cache;</li>
 *   <li>disk_mib_s: sequential write + fsync of the same amount into the same file system, this run;</li>
 *   <li>fresh_mem_mib_s (extra): how fast this machine hands out new memory, the cap on restore.</li>
 * </ul>
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure freeze window, dump and restore throughput against this disk's bandwidth.")
public final class SnapshotBenchCommand implements Callable<Integer> {

    @Option(names = "--sizes", split = ",", defaultValue = "256,1024,4096", description = "workload sizes in MiB (default: ${DEFAULT-VALUE})")
    List<Long> sizes;

    @Option(names = "--pre-dumps", defaultValue = "2", description = "iterative pre-dumps before the freeze (default: ${DEFAULT-VALUE})")
    int preDumps;

    @Option(names = "--dirty-kib", defaultValue = "256", description = "memory the workload rewrites every 10 ms (default: ${DEFAULT-VALUE})")
    long dirtyKib;

    @Option(names = "--store", description = "image store directory (default: a fresh one under /var/tmp, removed afterwards)")
    Path store;

    @Option(names = "--no-drop-caches", description = "restore from the page cache instead of dropping it first")
    boolean noDropCaches;

    PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        if (CriuBinary.find().isEmpty()) {
            System.err.println(CriuBinary.MISSING);
            return 2;
        }
        boolean tempStore = store == null;
        Path dir = tempStore ? Files.createTempDirectory(Path.of("/var/tmp"), "crucible-snapshot-bench") : store;
        try (SnapshotEngine engine = new EngineBuilder().store(dir).build()) {
            for (long size : sizes) {
                out.println(benchOne(engine, dir, size));
                out.flush();
            }
        } finally {
            if (tempStore) {
                ImageStore.deleteTree(dir);
            }
        }
        return 0;
    }

    String benchOne(SnapshotEngine engine, Path dir, long sizeMiB) throws Exception {
        double disk = DiskBandwidth.measure(dir, sizeMiB);
        double freshMem = DiskBandwidth.freshMemory(Math.min(sizeMiB, 512));
        String tag = Long.toString(System.currentTimeMillis(), 36);
        try (MemoryWorkload w = MemoryWorkload.start(sizeMiB, dirtyKib, 10, 0)) {
            Manifest full = engine.snapshot(request("bench-full-" + sizeMiB + "-" + tag, w.pid(), 0), CommitAction.THAW);
            Path images = engine.store().snapshotDir(SnapshotId.of(full.id)).resolve("images");
            long syncMs = fsyncAll(images);
            double imageMiB = full.imageBytes / 1048576.0;
            double dumpMibS = imageMiB / ((full.dumpMs + syncMs) / 1000.0);

            long freezeMs;
            int usedPreDumps = 0;
            if (full.memoryTracking && preDumps > 0) {
                Manifest iter = engine.snapshot(request("bench-iter-" + sizeMiB + "-" + tag, w.pid(), preDumps), CommitAction.THAW);
                freezeMs = iter.freezeWindowMs;
                usedPreDumps = iter.preDumps;
                engine.delete(iter.id);
            } else {
                freezeMs = full.freezeWindowMs; // no dirty tracking: the final dump is a full dump
            }

            if (!noDropCaches) {
                dropCaches();
            }
            RestoreResult r = engine.restore(new RestoreRequest(full.id, null, false, false));
            MemoryWorkload.kill(r.pid());
            double restoreMibS = imageMiB / (Math.max(1, r.restoreMs()) / 1000.0);
            engine.delete(full.id);
            return String.format(Locale.ROOT,
                    "size_mib=%d freeze_ms=%d dump_mib_s=%.0f restore_mib_s=%.0f disk_mib_s=%.0f"
                            + " image_mib=%.0f pre_dumps=%d mem_tracking=%s dump_ms=%d sync_ms=%d restore_ms=%d"
                            + " dump_vs_disk=%.2f restore_vs_disk=%.2f fresh_mem_mib_s=%.0f",
                    sizeMiB, freezeMs, dumpMibS, restoreMibS, disk, imageMiB, usedPreDumps, full.memoryTracking,
                    full.dumpMs, syncMs, r.restoreMs(), dumpMibS / disk, restoreMibS / disk, freshMem);
        }
    }

    private static SnapshotRequest request(String id, long pid, int preDumps) {
        return SnapshotRequest.of(id, TargetSpec.ofPid(pid)).withPreDumps(preDumps).withFreezeTimeoutMs(600_000);
    }

    /** fsync every image file so dump throughput is what reached the disk, like the dd baseline. */
    private static long fsyncAll(Path dir) throws IOException {
        long t0 = System.nanoTime();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
            }
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static void dropCaches() {
        try {
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
        } catch (IOException e) {
            // not root or read-only /proc: restore then reads from the page cache; the numbers say so (restore_vs_disk > 1)
        }
    }
}
