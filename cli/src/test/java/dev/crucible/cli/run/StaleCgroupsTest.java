package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34: a CLI killed with SIGKILL runs no hook, and its boxes' cgroups stayed in every hierarchy. The next run removes
 * the empty ones of runs that are gone ({@code LeftoverBoxes.sweepDead}), and only those: real cgroups in the memory
 * hierarchy named as Box names them, for a pid that has exited, for a live one, and for a gone one that still holds a process.
 */
@Timeout(60)
class StaleCgroupsTest {

    @Test
    void theEmptyCgroupsOfAGoneRunAreRemovedAndNoOtherOnes() throws Exception {
        Path parent = LeftoverBoxes.ROOT.resolve("memory/crucible");
        Assumptions.assumeTrue(Files.isDirectory(parent) && Files.isWritable(parent), "no writable cgroup v1 memory hierarchy with crucible/ here");
        // pid_max itself is never handed out: a pid no process has or will have, where one that ran and exited could be
        // reused on a busy CI box before the sweep looks (a reused pid keeps its folders, by design)
        long gonePid = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/pid_max")).get(0).trim()); // readString: "3" (sysctl EOF past offset 0)
        Process live = new ProcessBuilder("sleep", "60").start();
        Process member = new ProcessBuilder("sleep", "60").start();
        Path dead = parent.resolve("box-" + gonePid + "-4242");
        Path alive = parent.resolve("box-" + live.pid() + "-4242");
        Path busy = parent.resolve("box-" + gonePid + "-4243");
        Path other = parent.resolve("not-a-box-" + gonePid);
        Path named = parent.resolve("box-" + gonePid + "-4242-7"); // as Box names them now: uid, then the box's serial
        try {
            for (Path d : List.of(dead, alive, busy, other, named)) Files.createDirectory(d);
            // kernfs makes a cgroup folder's inode (and stamps its mtime) at the first lookup after mkdir, not at mkdir: Box
            // writes its limits into the folder at once, so look each one up here as Box does, or the sweep's own stat is the
            // first and the folder reads as made "now", too young for a ZERO age (failed on CI, stop 55)
            for (Path d : List.of(dead, alive, busy, other, named)) Files.getLastModifiedTime(d);
            Files.writeString(busy.resolve("cgroup.procs"), Long.toString(member.pid()));
            Path deadReal = dead.toRealPath();
            Thread.sleep(20); // cgroupfs stamps with the coarse clock, a few ms behind the JVM's: past ZERO age already
            List<Path> removed = LeftoverBoxes.sweepDead(LeftoverBoxes.ROOT, Duration.ZERO);
            assertThat(removed).contains(deadReal);
            assertThat(named).as("empty, of a pid that is gone, named as Box names it (host round 7: never swept); removed %s, mtime %s, now %s",
                    removed, Files.exists(named) ? Files.getLastModifiedTime(named) : "-", java.time.Instant.now()).doesNotExist();
            assertThat(dead).as("empty, of a pid that is gone").doesNotExist();
            assertThat(alive).as("its run's pid is alive").exists();
            assertThat(busy).as("a process is still in it: nothing is killed").exists();
            assertThat(other).as("not Crucible's").exists();
            assertThat(member.isAlive()).isTrue();
            assertThat(LeftoverBoxes.sweepDead(LeftoverBoxes.ROOT, Duration.ofHours(1))).as("too young").doesNotContain(alive, busy);
        } finally {
            member.destroyForcibly().waitFor();
            live.destroyForcibly().waitFor();
            Thread.sleep(200);
            for (Path d : List.of(dead, alive, busy, other, named)) Files.deleteIfExists(d);
        }
    }
}
