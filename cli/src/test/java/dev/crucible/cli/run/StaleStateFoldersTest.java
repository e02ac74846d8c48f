package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.exec.ProcessTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run without a volume keeps its state folder (pristine copy, hidden tests, grading copies) in the temporary folder, and a
 * CLI killed with SIGKILL left it there for good (seen as uid 64123: /tmp/crucible-state-*, 312K for the example). Its name
 * now carries its CLI's pid and start time, and the next run removes those whose CLI is gone, and only those. Real processes
 * stand for the CLIs: one that ended, this JVM (alive), and a live one recorded with another start (its pid reused).
 */
@Timeout(60)
class StaleStateFoldersTest {
    @Test
    void theFoldersOfGoneClisAreRemovedAndNoOtherOnes(@TempDir Path tmp) throws Exception {
        Process ended = new ProcessBuilder("sleep", "0.2").start();
        long endedStart = ProcessTable.stat(ended.pid()).orElseThrow().startTicks();
        assertThat(ended.waitFor(10, TimeUnit.SECONDS)).isTrue();
        Process reused = new ProcessBuilder("sleep", "30").start();
        try {
            long reusedStart = ProcessTable.stat(reused.pid()).orElseThrow().startTicks();
            Path gone = folder(tmp, StaleStateFolders.PREFIX + ended.pid() + "-" + endedStart + "-1");
            Path other = folder(tmp, StaleStateFolders.PREFIX + reused.pid() + "-" + (reusedStart - 1) + "-2");
            Path ours = folder(tmp, StaleStateFolders.prefix() + "3");
            Path unnamed = folder(tmp, StaleStateFolders.PREFIX + "4242424242");
            Path notState = folder(tmp, "crucible-pristine-" + ended.pid() + "-" + endedStart + "-5");
            Path channels = folder(tmp, dev.crucible.verifier.grade.ResultChannel.CHANNELS_PREFIX + ended.pid() + "-" + endedStart + "-6");
            Path ourChannels = folder(tmp, dev.crucible.verifier.grade.ResultChannel.CHANNELS_PREFIX + ProcessTable.selfTag() + "-7");
            Path mountns = folder(tmp, StaleStateFolders.MOUNTNS_PREFIX + ended.pid() + "-" + endedStart + "-8");
            // a box's staging folder: left when the box's watcher died with the CLI's heap (HostHeapExhaustionTest), unnamed before
            Path stage = folder(tmp, dev.crucible.verifier.sandbox.Box.STAGE_PREFIX + ended.pid() + "-" + endedStart + "-9");
            // another user's (host round 9, 10b: a root run removed them, and ones planted to look like them); as root only
            Path foreign = folder(tmp, StaleStateFolders.PREFIX + ended.pid() + "-" + endedStart + "-10");
            boolean root = "root".equals(System.getProperty("user.name"));
            if (root) Files.setAttribute(foreign, "unix:uid", 64123);
            assertThat(StaleStateFolders.sweep(tmp, Duration.ofSeconds(10))).containsExactlyInAnyOrder(
                    root ? new Path[] {gone, other, channels, mountns, stage} : new Path[] {gone, other, channels, mountns, stage, foreign});
            if (root) assertThat(foreign).as("another user's").exists();
            assertThat(ourChannels).as("this CLI's result channels").exists();
            assertThat(gone).as("its CLI ended").doesNotExist();
            assertThat(other).as("its pid names a process that started at another time").doesNotExist();
            assertThat(ours).as("this CLI still runs").exists();
            assertThat(unnamed).as("no owner in its name: never guessed at").exists();
            assertThat(notState).exists();
            assertThat(reused.isAlive()).as("nothing is killed").isTrue();
        } finally {
            reused.destroyForcibly();
        }
    }

    /** A state folder as a run leaves it: 0700, files and a nested folder in it. */
    private static Path folder(Path tmp, String name) throws Exception {
        Path d = Files.createDirectory(tmp.resolve(name));
        Files.createDirectories(d.resolve("grade-1/tests"));
        Files.writeString(d.resolve("grade-1/tests/test_x.py"), "def test_x():\n    assert True\n");
        Files.setPosixFilePermissions(d, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        return d;
    }
}
