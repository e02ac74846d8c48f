package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * hostred3 B4: a run SIGKILLed after its volume was mounted but before the owner file was written left the mount for
 * good (no later run's sweep knew it). A JVM of its own opens a volume through a {@code mount} that mounts and then
 * waits; it is killed in that wait, and the sweep must find the owner file and unmount the volume.
 */
@Timeout(180)
class KilledWhileMountingTest {

    /** The child: opens one volume (its {@code mount} never returns until killed). */
    public static void main(String[] args) {
        DiskVolume.open(Path.of(args[0]), Path.of(args[1]), 32L << 20);
    }

    @Test
    void aProcessKilledJustAfterMountingLeavesAVolumeTheSweepRemoves(@TempDir Path tmp) throws Exception {
        Assumptions.assumeTrue(Box.ROOT && Files.isExecutable(Path.of("/usr/bin/mount")) && DiskVolume.tool("mkfs.ext4") != null,
                "loop-mounted volumes need root, mount and mkfs.ext4");
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path mounted = tmp.resolve("mounted");
        Path fake = bin.resolve("mount");
        Files.writeString(fake, "#!/bin/sh\n/usr/bin/mount \"$@\" || exit $?\ntouch " + mounted + "\nexec sleep 120\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path image = tmp.resolve("v.img");
        Path mnt = tmp.resolve("mnt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), KilledWhileMountingTest.class.getName(),
                image.toString(), mnt.toString()).redirectErrorStream(true).redirectOutput(tmp.resolve("child.log").toFile());
        pb.environment().put("PATH", bin + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        Process child = pb.start();
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Files.exists(mounted)) {
                assertThat(child.isAlive()).as(Files.readString(tmp.resolve("child.log"))).isTrue();
                assertThat(System.nanoTime()).as("never mounted").isLessThan(until);
                Thread.sleep(50);
            }
            child.descendants().forEach(ProcessHandle::destroyForcibly);
            child.destroyForcibly(); // SIGKILL: no hook runs
            child.waitFor(30, TimeUnit.SECONDS);
            assertThat(Files.readString(Path.of("/proc/self/mounts"))).contains(mnt.toString());
            List<Path> swept = OrphanVolumes.sweep();
            assertThat(swept).as("the volume's owner file was written before it was mounted").contains(mnt);
            assertThat(Files.readString(Path.of("/proc/self/mounts"))).doesNotContain(mnt.toString());
        } finally {
            child.destroyForcibly();
            if (Files.readString(Path.of("/proc/self/mounts")).contains(mnt.toString())) DiskVolume.run(List.of("umount", "-l", mnt.toString()));
        }
    }
}
