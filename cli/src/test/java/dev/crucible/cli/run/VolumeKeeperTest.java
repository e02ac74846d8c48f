package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.sandbox.DiskVolume;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeping a workspace trims its volume only as often as the host's bound needs (root: a real loop-mounted 256 MiB volume).
 * The host's holding is measured, not assumed: the allocated bytes (du) of the volume's image plus the kept copy, sampled
 * while the tree is moved, must stay within the limit plus 64 MiB. A small tree is moved with the first trim only (before:
 * one more per 16 MiB moved, each an unmount, e2fsck and mount for a fuse2fs image); a full one still trims piece by piece.
 */
class VolumeKeeperTest {
    static final long MIB = 1L << 20;
    static final long LIMIT = 256 * MIB;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} MiB in a 256 MiB volume: at most {1} trims")
    @CsvSource({"48, 1", "220, 40"})
    void aKeptTreeIsTrimmedOnlyAsTheHostsBoundNeeds(int mib, int maxTrims) throws Exception {
        Assumptions.assumeTrue(dev.crucible.verifier.sandbox.Box.ROOT, "volumes need root (loop mount); not root here");
        Assumptions.assumeTrue(DiskVolume.tool("mkfs.ext4") != null && DiskVolume.tool("fstrim") != null, "mkfs.ext4 or fstrim missing");
        Path image = tmp.resolve("volume.img");
        DiskVolume.Opened o = DiskVolume.open(image, tmp.resolve("mnt"), LIMIT);
        assertThat(o.volume()).as(o.problem()).isNotNull();
        DiskVolume v = o.volume();
        AttemptDir dir = new AttemptDir(Files.createDirectories(tmp.resolve("attempt")));
        AtomicLong peak = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        int trims;
        try {
            Path ws = Files.createDirectories(v.mountPoint().resolve("workspace"));
            byte[] block = new byte[(int) MIB];
            java.util.Arrays.fill(block, (byte) 3);
            for (int i = 0; i < mib / 4; i++) { // 4 MiB files: many small ones and the pieces of none
                try (var out = Files.newOutputStream(ws.resolve("f" + i))) {
                    for (int k = 0; k < 4; k++) out.write(block);
                }
            }
            Files.createDirectories(v.mountPoint().resolve("state"));
            Thread sampler = new Thread(() -> {
                while (!done.get()) {
                    peak.accumulateAndGet(allocated(image) + allocated(dir.root()), Math::max);
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            sampler.start();
            trims = VolumeKeeper.keep(v, dir, "state");
            done.set(true);
            sampler.join();
        } finally {
            done.set(true);
            v.close();
        }
        System.out.printf("VolumeKeeperTest: %d MiB kept from a %d MiB volume: %d trims, peak host holding %d MiB (image + copy)%n",
                mib, LIMIT / MIB, trims, peak.get() / MIB);
        assertThat(trims).isBetween(1, maxTrims);
        assertThat(peak.get()).as("peak allocated bytes of the image and the kept copy").isLessThanOrEqualTo(LIMIT + 64 * MIB);
        Path kept = dir.root().resolve(VolumeKeeper.KEPT).resolve("workspace");
        try (var s = Files.list(kept)) {
            assertThat(s.count()).isEqualTo(mib / 4);
        }
        assertThat(Files.size(kept.resolve("f0"))).isEqualTo(4 * MIB);
    }

    /** Allocated bytes under {@code p} (du: real blocks, not apparent sizes), 0 when gone. */
    private static long allocated(Path p) {
        try {
            Process du = new ProcessBuilder("du", "-sxB1", p.toString()).redirectErrorStream(true).start();
            String out = new String(du.getInputStream().readAllBytes());
            du.waitFor();
            return Long.parseLong(out.trim().split("\\s+")[0]);
        } catch (Exception e) {
            return 0;
        }
    }
}
