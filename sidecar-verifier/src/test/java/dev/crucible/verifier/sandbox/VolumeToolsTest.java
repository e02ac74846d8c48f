package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A volume's compaction (fuse2fs images: unmounted, e2fsck -E discard, mounted again) must not hold a run that is stopped
 * or timed out: the e2fsck is bounded, and killed with its children when the volume closes. Its output was read to the end
 * before its bound was even looked at, so one that never ended held the cleanup for good. Real processes on an ext4 image
 * the test makes (mkfs.ext4 on a file: no root needed); an e2fsck that never ends is one stopped (SIGSTOP) before it starts,
 * as one stuck on a disk that does not answer would be, with a child holding its output open.
 */
@Timeout(120)
class VolumeToolsTest {
    @TempDir
    Path tmp;

    @Test
    void closingTheVolumeKillsItsCompactionAndMountsNothingAgain() throws Exception {
        Path e2fsck = assumeTools();
        Path img = tmp.resolve("v.img");
        assertThat(DiskVolume.format(img, 32L << 20, "")).isNull();
        String marker = "3000." + ProcessHandle.current().pid() + "1";
        AtomicReference<String> checked = new AtomicReference<>();
        AtomicBoolean mountedAgain = new AtomicBoolean();
        AtomicBoolean unmounted = new AtomicBoolean();
        DiskVolume v = DiskVolume.mounted(Files.createDirectories(tmp.resolve("mnt")), 32L << 20, "the test's image", () -> unmounted.set(true),
                vol -> {
                    checked.set(vol.runTool(stalled(e2fsck, img, marker), DiskVolume.COMPACT_BOUND));
                    String again = vol.mountAgain(() -> {
                        mountedAgain.set(true);
                        return null;
                    });
                    if (again != null && !vol.closing()) throw new IllegalStateException(again);
                });
        Thread trim = new Thread(v::trim, "test-trim");
        trim.start();
        awaitProcess(marker);
        long t0 = System.nanoTime();
        v.close();
        trim.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(trim.isAlive()).as("the compaction still waits on its e2fsck after the volume closed").isFalse();
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).isLessThan(20);
        assertThat(checked.get()).contains("stopped");
        assertThat(mountedAgain).as("a closed volume's image was mounted again").isFalse();
        assertThat(unmounted).isTrue();
        assertThat(processesWith(marker)).as("e2fsck's wrapper or its child left running").isZero();
        assertThat(processesWith(img.toString())).isZero();
    }

    @Test
    void aToolPastItsBoundIsKilledWithItsChildren() throws Exception {
        Path e2fsck = assumeTools();
        Path img = tmp.resolve("b.img");
        assertThat(DiskVolume.format(img, 32L << 20, "")).isNull();
        String marker = "3000." + ProcessHandle.current().pid() + "2";
        DiskVolume v = DiskVolume.mounted(tmp.resolve("mnt2"), 32L << 20, "the test's image", () -> { });
        long t0 = System.nanoTime();
        String err = v.runTool(stalled(e2fsck, img, marker), Duration.ofSeconds(2));
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).as("returned past its bound").isLessThan(15);
        assertThat(err).contains("did not finish in 2 s; stopped");
        assertThat(processesWith(marker)).isZero();
        // a real compaction of the image, unstopped: it ends, and says nothing
        assertThat(v.runTool(List.of(e2fsck.toString(), "-f", "-y", "-E", "discard", img.toString()), DiskVolume.COMPACT_BOUND)).isNull();
        v.stopTools();
        assertThat(v.runTool(List.of("true"), Duration.ofSeconds(5))).as("started after stopTools").contains("not started");
    }

    /** e2fsck on {@code img} behind a shell that stops itself first (it never ends on its own), a child holding the output open. */
    private static List<String> stalled(Path e2fsck, Path img, String marker) {
        return List.of("sh", "-c", "sleep " + marker + " & kill -STOP $$; exec " + e2fsck + " -f -y -E discard " + img);
    }

    private static Path assumeTools() {
        Path e2fsck = DiskVolume.tool("e2fsck");
        Assumptions.assumeTrue(e2fsck != null && DiskVolume.tool("mkfs.ext4") != null, "e2fsprogs is missing (apt-get install -y e2fsprogs)");
        return e2fsck;
    }

    private static void awaitProcess(String marker) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (processesWith(marker) == 0) {
            assertThat(System.nanoTime()).as("the stalled e2fsck never started").isLessThan(until);
            Thread.sleep(50);
        }
        Thread.sleep(300); // its shell has stopped itself by now
    }

    private static long processesWith(String text) {
        return ProcessHandle.allProcesses().filter(p -> p.pid() != ProcessHandle.current().pid()).filter(p -> {
            try {
                return Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline")).contains(text);
            } catch (IOException | RuntimeException gone) {
                return false;
            }
        }).count();
    }
}
