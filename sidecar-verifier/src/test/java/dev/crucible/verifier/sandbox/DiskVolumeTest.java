package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real loop-mounted volume (root only): writes stop at its size, the host holds no more than that, and it leaves nothing behind. */
class DiskVolumeTest {
    @TempDir
    Path tmp;

    @Test
    void writesStopAtTheSizeAndTheHostHoldsNoMore() throws Exception {
        assumeVolumes();
        Path image = tmp.resolve("v.img");
        Path mount = tmp.resolve("mnt");
        DiskVolume.Opened o = DiskVolume.open(image, mount, 64L << 20);
        assertThat(o.problem()).isNull();
        try (DiskVolume v = o.volume()) {
            assertThat(Files.readString(Path.of("/proc/self/mounts"))).contains(mount.toString());
            assertThat(v.full()).isFalse();
            byte[] mib = new byte[1 << 20];
            java.util.Arrays.fill(mib, (byte) 7);
            assertThatThrownBy(() -> {
                try (OutputStream out = Files.newOutputStream(mount.resolve("fill"))) {
                    for (int i = 0; i < 200; i++) out.write(mib);
                }
            }).isInstanceOf(IOException.class).hasMessageContaining("space");
            assertThat(v.full()).isTrue();
            assertThat(v.reason()).startsWith("disk limit 64Mi reached");
            DiskVolume.run(List.of("sync"));
            assertThat(allocated(image)).as("the image's blocks on the host").isLessThanOrEqualTo(64L << 20);
            Files.delete(mount.resolve("fill"));
            v.trim();
            assertThat(allocated(image)).as("trim gives the blocks back").isLessThan(16L << 20);
        }
        assertThat(Files.readString(Path.of("/proc/self/mounts"))).doesNotContain(mount.toString());
        assertThat(image).doesNotExist();
    }

    @Test
    void aVolumeOutOfInodesSaysSoNotThatItsBytesAreFull() throws Exception {
        // host round 4: a flood of empty files filled a volume's inode table at a few MiB of its bytes, and the reason said
        // "disk limit reached (the attempt's volume is full: 3Mi used)", which sent the reader looking for big files
        assumeVolumes();
        DiskVolume.Opened o = DiskVolume.open(tmp.resolve("v.img"), tmp.resolve("mnt"), 16L << 20);
        assertThat(o.problem()).isNull();
        try (DiskVolume v = o.volume()) {
            assertThat(v.freeInodes()).isPositive();
            assertThat(v.reason()).contains("is full");
            Path mount = tmp.resolve("mnt");
            assertThatThrownBy(() -> {
                for (int i = 0; i < 200_000; i++) Files.createFile(mount.resolve("f" + i));
            }).isInstanceOf(IOException.class).hasMessageContaining("space");
            assertThat(v.full()).as("its bytes are not full").isFalse();
            assertThat(v.freeInodes()).isZero();
            assertThat(v.reason()).startsWith("disk limit 16Mi reached").contains("no inodes left").doesNotContain("is full");
        }
    }

    @Test
    void aMountPointThatIsNotEmptyIsRefusedWithTheReason() throws Exception {
        assumeVolumes();
        Path mount = Files.createDirectories(tmp.resolve("mnt"));
        Files.writeString(mount.resolve("x"), "x");
        DiskVolume.Opened o = DiskVolume.open(tmp.resolve("v.img"), mount, 64L << 20);
        assertThat(o.volume()).isNull();
        assertThat(o.problem()).contains("not empty");
        assertThat(tmp.resolve("v.img")).doesNotExist();
    }

    @Test
    void aVolumeWhoseProcessDiedIsSweptAndALiveOneIsNot() throws Exception {
        assumeVolumes();
        DiskVolume live = DiskVolume.open(tmp.resolve("live.img"), tmp.resolve("live"), 32L << 20).volume();
        DiskVolume dead = DiskVolume.open(tmp.resolve("dead.img"), tmp.resolve("dead"), 32L << 20).volume();
        try {
            Process gone = new ProcessBuilder("true").start();
            gone.waitFor();
            // as a run killed with SIGKILL leaves it: mounted, its image there, its owner a process that is no more
            Files.writeString(OrphanVolumes.ownerFile(tmp.resolve("dead.img")), "crucible-disk-volume " + gone.pid() + " 1\n");
            List<Path> swept = OrphanVolumes.sweep();
            assertThat(swept).contains(tmp.resolve("dead")).doesNotContain(tmp.resolve("live"));
            String mounts = Files.readString(Path.of("/proc/self/mounts"));
            assertThat(mounts).doesNotContain(tmp.resolve("dead").toString()).contains(tmp.resolve("live").toString());
            assertThat(tmp.resolve("dead.img")).doesNotExist();
        } finally {
            dead.close();
            live.close();
        }
        assertThat(OrphanVolumes.unescape("/a\\040b")).isEqualTo("/a b");
    }

    static void assumeVolumes() {
        Assumptions.assumeTrue(Box.ROOT, "disk volumes: not root, no loop mount here");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/mkfs.ext4")) || Files.isExecutable(Path.of("/sbin/mkfs.ext4")),
                "disk volumes: mkfs.ext4 is missing (apt-get install -y e2fsprogs)");
    }

    /** Bytes the host allocated to {@code f} (du, not its length). */
    static long allocated(Path f) throws Exception {
        Process p = new ProcessBuilder("du", "-B1", f.toString()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return Long.parseLong(out.split("\\s+")[0]);
    }
}
