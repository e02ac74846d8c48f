package dev.crucible.verifier.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A started command is killed by its pid and start time (host round 4's leftover: LocalExecutor killed by number). Once
 * the JVM reaps it its pid is free; the kernel hands it to the next fork (ns_last_pid makes that happen here, root only),
 * and ending the started command must leave that process alone. It was SIGKILLed with its session before.
 */
@Timeout(120)
class LocalExecutorKillTest {
    private static final Path NS_LAST_PID = Path.of("/proc/sys/kernel/ns_last_pid");

    @TempDir Path dir;

    @Test
    void killingAnEndedCommandLeavesTheProcessThatReusedItsPidAlone() throws Exception {
        assumeTrue(Files.isWritable(NS_LAST_PID), "ns_last_pid is root's: needed to hand the command's pid to a new process");
        for (int tries = 0; tries < 50; tries++) {
            LocalExecutor.Started cmd = new LocalExecutor().start(new ExecRequest(List.of("true"), dir, null, false,
                    Duration.ofSeconds(10), 1024, null, true, null, null), started -> { });
            long pid = cmd.pid();
            for (int i = 0; i < 200 && cmd.isAlive(); i++) Thread.sleep(10);
            Thread.sleep(30); // start times count clock ticks (10 ms): a reuse in the same tick would look like the same process
            Files.writeString(NS_LAST_PID, Long.toString(pid - 1));
            Process other = new ProcessBuilder("setsid", "sleep", "30").start(); // its own session, as a command's would be
            try {
                if (other.pid() != pid) continue; // another fork on this machine won the pid: try again
                cmd.kill();
                assertThat(other.waitFor(300, TimeUnit.MILLISECONDS)).as("the process that reused the command's pid was killed").isFalse();
                return;
            } finally {
                other.destroyForcibly();
            }
        }
        throw new AssertionError("no new process got the command's pid in 50 tries (other forks won each time)");
    }

    @Test
    void aRunningCommandAndWhatItLeftInItsSessionAreKilled() throws Exception {
        LocalExecutor.Started cmd = new LocalExecutor().start(new ExecRequest(List.of("sh", "-c", "sleep 60 & echo $!; wait"), dir, null,
                false, Duration.ofSeconds(10), 1024, null, true, null, null), started -> { });
        for (int i = 0; i < 200 && ProcessHandle.of(cmd.pid()).map(h -> h.descendants().count()).orElse(0L) == 0; i++) Thread.sleep(10);
        List<ProcessHandle> children = ProcessHandle.of(cmd.pid()).orElseThrow().descendants().toList();
        assertThat(children).as("the command's background sleep").isNotEmpty();
        cmd.kill();
        for (ProcessHandle c : children) assertThat(c.onExit().get(10, TimeUnit.SECONDS).isAlive()).isFalse();
        for (int i = 0; i < 500 && cmd.isAlive(); i++) Thread.sleep(10);
        assertThat(cmd.isAlive()).isFalse();
    }
}
