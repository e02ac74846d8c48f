package dev.crucible.verifier.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A root recorded with its start time is killed only while its pid still names that process: pid_max is 32768 here and
 * a busy machine wraps it in minutes, so a stale pid can name a parallel test's fresh process (ci40: BoxTest's spawn
 * helper died of SIGKILL at fork). Real processes; a reused pid is shown by recording a live process with another start.
 */
class ProcessTreeKillerTest {
    @Test
    void aPidThatNowNamesAnotherProcessIsLeftAlone() throws Exception {
        Process other = new ProcessBuilder("sleep", "30").start();
        try {
            long start = ProcessTable.stat(other.pid()).orElseThrow().startTicks();
            // the pid as a root that started earlier (the one this pid named before it was reused)
            ProcessTreeKiller.killStarted(Map.of(other.pid(), start - 1));
            assertThat(other.waitFor(300, TimeUnit.MILLISECONDS)).as("another process under a reused pid was killed").isFalse();
            // recorded while it ran: it is that process, and it dies
            ProcessTreeKiller.killStarted(ProcessTreeKiller.startsOf(java.util.List.of(other.pid())));
            assertThat(other.waitFor(10, TimeUnit.SECONDS)).as("the recorded root").isTrue();
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void aRootGoneWhenRecordedIsNotKilledWhenItsPidComesBack() throws Exception {
        Process other = new ProcessBuilder("sleep", "30").start();
        try {
            ProcessTreeKiller.killStarted(Map.of(other.pid(), -1L)); // recorded as gone: whatever runs under the pid now is not it
            assertThat(other.waitFor(300, TimeUnit.MILLISECONDS)).isFalse();
        } finally {
            other.destroyForcibly();
        }
    }
}
