package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.contract.OutcomeReasons;
import dev.crucible.contract.PhaseName;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34 point 2, a run always ends: the real CLI in its own JVM (its temporary folder its own, so its
 * state folders can be counted), stopped by SIGTERM while its agent sleeps, and while its live monitor is
 * stuck on a FIFO the agent put at .git/HEAD, and while it grades 100,000 files (within {@link Interruption#EXIT_BOUND_S});
 * and left alone with that FIFO until its deadline. Each time:
 * result.json with the contract's phase and reason, the exit status, no agent left, no state folder, no
 * cgroup of its boxes, no mount under its folder.
 */
@Timeout(300)
class RunEndsTest {
    private static final String FIFO = "rm -f .git/HEAD && mkfifo .git/HEAD && ";

    @Test
    void sigtermWritesAnInterruptedResultAndLeavesNothing(@TempDir Path dir) throws Exception {
        RunningCli cli = RunningCli.start(dir, "sleep 876.125" + ProcessHandle.current().pid(), 120);
        cli.awaitRunning();
        cli.signal("TERM");
        assertThat(cli.awaitExit(60)).as(cli.log()).isEqualTo(128 + 15);
        cli.assertEnded(PhaseName.Failed, OutcomeReasons.INTERRUPTED);
    }

    @Test
    void sigtermEndsARunWhoseMonitorIsStuckOnAFifo(@TempDir Path dir) throws Exception {
        RunningCli cli = RunningCli.start(dir, FIFO + "echo planted && sleep 876.25" + ProcessHandle.current().pid(), 120);
        cli.awaitRunning();
        cli.awaitAgentLog("planted");
        Thread.sleep(3000); // the monitor scans every second: it is now in (or past) its read of the FIFO
        cli.signal("TERM");
        assertThat(cli.awaitExit(Interruption.GRACE_S + 40)).as(cli.log()).isEqualTo(128 + 15);
        cli.assertEnded(PhaseName.Failed, OutcomeReasons.INTERRUPTED);
    }

    /**
     * SIGTERM while grading a workspace of 100,000 files the agent made: the grade is dropped anyway, so the attempt is not
     * waited for, and the cleanup after an interrupted result is short (what is not moved off the volume by then goes with it).
     * Before: exit 49.7 s after the signal (20 s waiting for the grading copy, then up to 60 s of cleanup).
     */
    @Test
    void sigtermWhileGradingManyFilesEndsWithinItsBound(@TempDir Path dir) throws Exception {
        RunningCli cli = RunningCli.start(dir, "mkdir many && cd many && seq 1 100000 | xargs touch && echo made; exit 0 && sleep 876.75"
                + ProcessHandle.current().pid(), 300);
        cli.awaitLog("Verifying: grading");
        Thread.sleep(1000); // in the grading copy of the 100,000 files
        long t = System.nanoTime();
        cli.signal("TERM");
        int exit = cli.awaitExit(120);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
        System.out.printf("[sigterm] 100,000 files, SIGTERM during grading: exit %d after %,d ms (bound %d s)%n", exit, ms, Interruption.EXIT_BOUND_S);
        assertThat(exit).as(cli.log()).isEqualTo(128 + 15);
        cli.assertEnded(PhaseName.Failed, OutcomeReasons.INTERRUPTED);
        assertThat(ms).as("exit after the signal, ms:\n" + cli.log()).isLessThanOrEqualTo(TimeUnit.SECONDS.toMillis(Interruption.EXIT_BOUND_S));
    }

    @Test
    void aFifoAtGitHeadCannotKeepTheRunPastItsDeadline(@TempDir Path dir) throws Exception {
        int deadline = 10;
        int gradingTimeout = 15;
        RunningCli cli = RunningCli.start(dir, FIFO + "sleep 876.5" + ProcessHandle.current().pid(), deadline, gradingTimeout);
        // the deadline, grading's bound (the monitor's last scan, stuck on the FIFO, runs in it), and the CLI's own
        // start (a JVM, the workspace, setup) on a loaded machine
        long bound = deadline + gradingTimeout + AttemptWatchdog.GRADING_MARGIN_S + 60;
        assertThat(cli.awaitExit(bound)).as(cli.log()).isZero();
        JsonNode res = cli.assertEnded(null, null);
        assertThat(res.path("phase").asText()).as(cli.log()).isIn(PhaseName.TimedOut.name(), PhaseName.Hacked.name(), PhaseName.Succeeded.name());
        if (res.path("phase").asText().equals(PhaseName.TimedOut.name())) {
            // TimedOut pays the floor even when the watchdog ended the attempt before grading reported (host round 4 B1:
            // reward null), and its message says what ended it, not only the deadline
            assertThat(res.path("reward").isNumber()).as(res.toString()).isTrue();
            assertThat(res.path("reward").asDouble()).isEqualTo(0.0);
            if (res.path("message").asText().startsWith("ended by the watchdog")) {
                assertThat(res.path("message").asText()).containsAnyOf("grading ran past its bound", "grading has not started");
            }
        }
    }
}
