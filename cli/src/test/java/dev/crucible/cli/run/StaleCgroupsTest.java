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
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Process live = new ProcessBuilder("sleep", "60").start();
        Process member = new ProcessBuilder("sleep", "60").start();
        Path dead = parent.resolve("box-" + gone.pid() + "-4242");
        Path alive = parent.resolve("box-" + live.pid() + "-4242");
        Path busy = parent.resolve("box-" + gone.pid() + "-4243");
        Path other = parent.resolve("not-a-box-" + gone.pid());
        Path named = parent.resolve("box-" + gone.pid() + "-4242-7"); // as Box names them now: uid, then the box's serial
        try {
            for (Path d : List.of(dead, alive, busy, other, named)) Files.createDirectory(d);
            Files.writeString(busy.resolve("cgroup.procs"), Long.toString(member.pid()));
            Path deadReal = dead.toRealPath();
            Thread.sleep(1000); // cgroupfs stamps a new folder up to some ms ahead of the JVM's clock: past ZERO age only then
            List<Path> removed = LeftoverBoxes.sweepDead(LeftoverBoxes.ROOT, Duration.ZERO);
            assertThat(removed).contains(deadReal);
            assertThat(named).as("empty, of a pid that is gone, named as Box names it (host round 7: never swept)").doesNotExist();
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
