package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, host round 6, P3: a SIGTERM while grading beside 2 GiB of data. The exit hook's close was still moving the
 * workspace off the volume when its bound ran out; the JVM then ended and its thread with it, mid-copy, and the loop mount
 * and its image stayed until the next run swept them. Now the exit hook unmounts the volume (lazily) and deletes its image
 * before the JVM ends. Root only: a real loop-mounted volume.
 */
class ExitMidCleanupTest {
    @TempDir
    Path tmp;

    @Test
    void theExitHookLeavesNoVolumeMountedWhenItsBoundEndsMidCopy() throws Exception {
        exitMidCopy(false);
    }

    /**
     * Host round 7, case 4: the SIGTERM came after the result, while the attempt's own close (60 s bound) moved 3 GB off the
     * volume; that close had already taken the scratch off the open ones, so the exit hook saw nothing, and the JVM's end
     * left the volume mounted with nothing said.
     */
    @Test
    void theExitHookEndsAnAttemptsOwnCloseStillMovingTheWorkspace() throws Exception {
        exitMidCopy(true);
    }

    private void exitMidCopy(boolean closing) throws Exception {
        Assumptions.assumeTrue(dev.crucible.verifier.sandbox.Box.ROOT, "attempt volumes need root (loop mount); not root here");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/mkfs.ext4")), "mkfs.ext4 is missing (apt-get install -y e2fsprogs)");
        AttemptDir dir = new AttemptDir(Files.createDirectories(tmp.resolve("attempt-0")));
        ResourcesSpec r = new ResourcesSpec();
        r.ephemeralStorage = "1Gi";
        AttemptScratch s = AttemptScratch.open(dir, r, true);
        assertThat(s.volume()).as(s.describe()).isNotNull();
        Path ws = Files.createDirectories(dir.sandbox().resolve("workspace"));
        byte[] chunk = new byte[8 << 20];
        new java.util.Random(1).nextBytes(chunk); // real data: nothing a hole could skip
        try (var out = Files.newOutputStream(ws.resolve("data.bin"))) {
            for (int i = 0; i < 48; i++) out.write(chunk); // 384 MiB: its move runs well past the bound below
        }
        Path image = dir.root().resolve(AttemptScratch.IMAGE);
        assertThat(image).exists();

        Thread own = null;
        if (closing) { // the attempt's own close, after its result: still moving the workspace when the signal comes
            own = new Thread(s::close, "attempt-close");
            own.setDaemon(true);
            own.start();
            Thread.sleep(300);
        }
        List<String> said = AttemptScratch.closeAll(Duration.ofMillis(1), Duration.ofMillis(1)); // what the exit hook does

        assertThat(said).as("the hook says what went").anyMatch(l -> l.contains("was unmounted and its image deleted"));
        assertThat(Files.readAllLines(Path.of("/proc/self/mounts"))).as("no mount of the attempt's volume once the hook returns")
                .noneMatch(l -> l.contains(dir.sandbox().toString()));
        assertThat(image).as("the image is deleted").doesNotExist();
        if (own != null) own.join(120_000); // what it does after the volume went is the JVM's end's business
    }
}
