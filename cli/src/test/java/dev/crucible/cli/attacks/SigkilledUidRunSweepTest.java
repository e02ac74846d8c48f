package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.cli.run.LocalRuns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34 point 2, end to end without root: a {@code crucible run} as uid 64123 (no cgroups, no loop volume: its state folder,
 * its mount namespace's folder and its result channels lie in its temporary folder) is SIGKILLed while its agent sleeps, so no hook
 * runs; the next run of that uid, with the same temporary folder, removes everything the killed one left there, and no agent of
 * it is still running. (The root case, cgroups and a loop volume, is cli's {@code SigkilledRunSweepTest}.)
 */
@Tag("attacks")
@Timeout(400)
class SigkilledUidRunSweepTest {
    @Test
    void theNextRunOfTheUidRemovesWhatASigkilledRunLeft() throws Exception {
        int uid = CliProcess.THROWAWAY_UID;
        CliProcess.assumeRoot(); // to become the throwaway uid
        CliProcess.assumeBubblewrapFor(uid);
        String marker = "876.375" + ProcessHandle.current().pid();
        try (AttackHost host = new AttackHost()) {
            Path env = AttackFixtures.attackEnvironment(host.base.resolve("env"), "hidden-tests-sigkill", "");
            Files.writeString(env.resolve("rollout.yaml"), AttackFixtures.rolloutWithLimits("sigkilled", "sleep " + marker, 300, ""));
            Path tmp = Files.createDirectories(host.base.resolve("tmp")); // the runs' own: only theirs is in it
            CliProcess.chown(env, uid);
            CliProcess.chown(tmp, uid);
            Map<String, String> tmpdir = Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + tmp);
            Path log = host.base.resolve("first.log");
            Process first = CliProcess.start(uid, host.home, List.of("run", "-f", env.toString(), "--out", host.base.resolve("out").toString()),
                    null, log, tmpdir);
            try {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
                while (!read(log).contains("Running: agent") || LocalRuns.processesWith(marker) == 0) {
                    assertThat(first.isAlive()).as(read(log)).isTrue();
                    assertThat(System.nanoTime()).as("the agent never started: " + read(log)).isLessThan(until);
                    Thread.sleep(100);
                }
                Thread.sleep(1000);
            } finally {
                first.destroyForcibly(); // SIGKILL: no hook runs
            }
            assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(2000); // what the kill takes with it (the namespace's processes) goes
            List<String> left = crucibleEntries(tmp);
            System.out.printf("[sigkill uid] left in its temporary folder: %s; %d agent process(es)%n", left, LocalRuns.processesWith(marker));
            assertThat(left).as("the killed run left nothing to sweep (else this test shows nothing); it said:\n" + read(log)).isNotEmpty();
            Files.writeString(env.resolve("rollout.yaml"), AttackFixtures.rolloutWithLimits("next", "true", 120, "")); // an agent that exits at once
            Path log2 = host.base.resolve("second.log");
            Process second = CliProcess.start(uid, host.home, List.of("run", "-f", env.toString(), "--out", host.base.resolve("out2").toString()),
                    null, log2, tmpdir);
            assertThat(second.waitFor(240, TimeUnit.SECONDS)).as(read(log2)).isTrue();
            List<String> after = crucibleEntries(tmp);
            assertThat(after).as("the killed run's folders after the next run; it said:\n" + read(log2)).doesNotContainAnyElementsOf(left);
            assertThat(LocalRuns.processesWith(marker)).as("the killed run's agent").isZero();
        }
    }

    /** The names Crucible gives its folders in a temporary folder (state, mount namespace, result channels, boxes). */
    private static List<String> crucibleEntries(Path tmp) throws IOException {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("crucible-")).sorted().toList();
        }
    }

    private static String read(Path f) {
        try {
            return Files.exists(f) ? Files.readString(f) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
