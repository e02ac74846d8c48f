package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.sandbox.Box;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: a {@code crucible run} killed with SIGKILL mid-agent runs no hook, and leaves its box cgroups and its loop-mounted
 * volume; the next run removes them ({@code LeftoverBoxes.sweepDead}, {@code OrphanVolumes.sweep}). The real CLI twice, as
 * root (cgroups and a loop volume need it): the first is killed while its agent sleeps, what it left is listed, and after
 * the second (another folder, an agent that exits at once) none of it may remain, nor the agent.
 */
@Timeout(400)
class SigkilledRunSweepTest {
    @Test
    void theNextRunRemovesWhatASigkilledRunLeft(@TempDir Path dir) throws Exception {
        assumeTrue(Box.ROOT, "box cgroups and loop volumes are root's");
        assumeTrue(Box.availability().ok(), "the agent's box is bubblewrap: " + Box.availability().problem());
        String marker = "876.25" + ProcessHandle.current().pid();
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), null));
        Path out = dir.resolve("out");
        Process first = cli(dir, env, "sleep " + marker, out, dir.resolve("first.log"));
        long killed = first.pid();
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
            while (!read(dir.resolve("first.log")).contains("Running: agent") || LocalRuns.processesWith(marker) == 0) {
                assertThat(first.isAlive()).as(read(dir.resolve("first.log"))).isTrue();
                assertThat(System.nanoTime()).as("the agent never started: " + read(dir.resolve("first.log"))).isLessThan(until);
                Thread.sleep(100);
            }
            Thread.sleep(1000);
        } finally {
            first.destroyForcibly(); // SIGKILL: no hook runs
        }
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<Path> cgroups = LeftoverBoxes.find(LeftoverBoxes.ROOT, killed);
        List<String> mounts = mountsUnder(out);
        System.out.printf("[sigkill] left by pid %d: %d box cgroup(s), mounts %s, %d agent process(es)%n", killed, cgroups.size(), mounts,
                LocalRuns.processesWith(marker));
        assertThat(mounts).as("the killed run's volume is still mounted (else there is nothing to sweep); it said:\n"
                + read(dir.resolve("first.log")) + "\nagent.log:\n" + read(out.resolve("agent.log"))).isNotEmpty();
        Thread.sleep(11_000); // sweepDead leaves cgroups younger than 10 s (a run that is starting)
        Process second = cli(dir, env, "true", dir.resolve("out2"), dir.resolve("second.log"));
        assertThat(second.waitFor(240, TimeUnit.SECONDS)).as(read(dir.resolve("second.log"))).isTrue();
        String said = read(dir.resolve("second.log"));
        try {
            for (Path c : cgroups) assertThat(c).as("the killed run's box cgroup; the next run said:\n" + said).doesNotExist();
            assertThat(LeftoverBoxes.find(LeftoverBoxes.ROOT, killed)).as(said).isEmpty();
            assertThat(mountsUnder(out)).as("the killed run's volume; the next run said:\n" + said).isEmpty();
            assertThat(out.resolve(AttemptScratch.IMAGE)).doesNotExist();
            assertThat(LocalRuns.processesWith(marker)).as("the killed run's agent").isZero();
            try (java.util.stream.Stream<Path> s = Files.list(dir.resolve("tmp"))) { // host round 9, case 16: unnamed, never swept
                assertThat(s.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(Box.STAGE_PREFIX)).toList())
                        .as("the boxes' staging folders; the next run said:\n" + said).isEmpty();
            }
        } finally {
            LeftoverBoxes.sweep(killed); // a failed case's leftovers are removed here, not left to the machine
            dev.crucible.verifier.sandbox.OrphanVolumes.sweep();
        }
    }

    private static Process cli(Path dir, Path env, String agent, Path out, Path log) throws IOException {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        for (Path d : List.of(dir, tmp)) { // the box's uid reaches its folders under the CLI's temporary folder (bwrap: Permission denied)
            Files.setPosixFilePermissions(d, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> argv = new ArrayList<>(List.of(java, "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"),
                RunCommand.class.getName(), "-f", env.toString(), "--agent-cmd", agent, "--out", out.toString()));
        return new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(new File("/dev/null")).start();
    }

    /** Mount points under {@code dir}, from this process's mount table. */
    private static List<String> mountsUnder(Path dir) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/mounts")).stream().map(l -> l.split(" ")[1])
                .filter(m -> m.startsWith(dir.toString())).toList();
    }

    private static String read(Path f) {
        try {
            return Files.exists(f) ? Files.readString(f) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
