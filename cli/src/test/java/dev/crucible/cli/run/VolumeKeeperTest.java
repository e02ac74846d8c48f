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

    /**
     * Blind host round 5, B2: the agent's files with 255-byte names that are not UTF-8 were each "File name too long" in
     * not-kept.txt (30,000 of them: a 46 MB list) and went with the volume: their copies were named by text, each 0xff
     * three bytes again. They are kept under their own bytes. The "volume" is a plain folder (nothing to unmount or trim).
     */
    @org.junit.jupiter.api.Test
    void namesOf255BytesThatAreNotUtf8AreKeptUnderTheirOwnBytes() throws Exception {
        Path vol = Files.createDirectories(tmp.resolve("vol"));
        Path junk = Files.createDirectories(vol.resolve("workspace/junk"));
        for (int i = 0; i < 3; i++) Files.writeString(odd(junk, i), "x" + i);
        Path oddDir = Files.createDirectory(odd(vol.resolve("workspace"), 7));
        Files.writeString(oddDir.resolve("in.py"), "x = 1\n");
        DiskVolume v = DiskVolume.mounted(vol, 1L << 30, "a plain folder", () -> { });
        AttemptDir dir = new AttemptDir(Files.createDirectories(tmp.resolve("attempt")));
        VolumeKeeper.keep(v, dir, "state");
        Path kept = dir.root().resolve(VolumeKeeper.KEPT);
        assertThat(dir.root().resolve("not-kept.txt")).doesNotExist();
        for (int i = 0; i < 3; i++) assertThat(kept.resolve(vol.relativize(odd(junk, i)))).hasContent("x" + i);
        assertThat(kept.resolve(vol.relativize(oddDir)).resolve("in.py")).hasContent("x = 1\n");
    }

    /** A 255-byte name in {@code dir}: 247 bytes 0xff (no UTF-8) and 8 digits, made by bytes through a file URI. */
    static Path odd(Path dir, int i) {
        return Path.of(java.net.URI.create(dir.toUri().toString().replaceAll("/?$", "/") + "%FF".repeat(247) + String.format("%08d", i)));
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
