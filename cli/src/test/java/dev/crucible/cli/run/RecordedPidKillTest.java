package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CLI's kill path for the agent and setup pids it recorded (the watchdog past the deadline, an abandoned attempt,
 * Ctrl-C): pid_max is 32768 here and a busy machine wraps it in minutes, so the recorded number may name another process
 * by then. It was killed by number alone ({@code killByPid}); now only while the number names the process recorded.
 * Real processes; the first case makes the kernel hand the recorded pid to a new process (ns_last_pid, root only).
 */
@Timeout(120)
class RecordedPidKillTest {
    private static final Path NS_LAST_PID = Path.of("/proc/sys/kernel/ns_last_pid");

    @Test
    void aNewProcessThatGotTheRecordedPidIsLeftAlone() throws Exception {
        assumeTrue(Files.isWritable(NS_LAST_PID), "ns_last_pid is root's: the next case shows the same with a recorded start time");
        for (int tries = 0; tries < 50; tries++) {
            Process agent = new ProcessBuilder("sleep", "30").start();
            AgentProcesses.Recorded recorded = AgentProcesses.Recorded.now(agent.pid());
            agent.destroyForcibly();
            agent.waitFor();
            Thread.sleep(30); // start times count clock ticks (10 ms): a reuse within the same tick would look like the same process
            // the next fork gets the agent's pid (unless another process on this machine forks first: then try again)
            Files.writeString(NS_LAST_PID, Long.toString(recorded.pid() - 1));
            Process other = new ProcessBuilder("sleep", "30").start();
            try {
                if (other.pid() != recorded.pid()) continue;
                AgentProcesses.kill(recorded);
                assertThat(other.waitFor(300, TimeUnit.MILLISECONDS)).as("the process that reused the agent's pid was killed").isFalse();
                return;
            } finally {
                other.destroyForcibly();
            }
        }
        throw new AssertionError("no new process got the recorded pid in 50 tries (other forks won each time)");
    }

    @Test
    void aPidRecordedForAnotherStartIsLeftAloneAndTheRecordedProcessDies() throws Exception {
        Process other = new ProcessBuilder("sleep", "30").start();
        try {
            AgentProcesses.Recorded now = AgentProcesses.Recorded.now(other.pid());
            // the pid as recorded for the process it named before (an earlier start): not this one
            AgentProcesses.kill(new AgentProcesses.Recorded(now.pid(), now.startTicks() - 1), AgentProcesses.Recorded.NONE);
            assertThat(other.waitFor(300, TimeUnit.MILLISECONDS)).as("another process under a reused pid was killed").isFalse();
            AgentProcesses.kill(now);
            assertThat(other.waitFor(10, TimeUnit.SECONDS)).as("the recorded process, still running").isTrue();
        } finally {
            other.destroyForcibly();
        }
    }
}
