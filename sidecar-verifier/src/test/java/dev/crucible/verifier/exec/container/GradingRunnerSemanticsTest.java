package dev.crucible.verifier.exec.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.ResultChannel;
import dev.crucible.verifier.support.GradingContainerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner keeps what LocalExecutor promises a grader (timeouts, stdin, exit codes, bounded output,
 * the result channel as fd 3, nothing left running), with the runner a real process standing for the
 * grading container (no per-command box: the pod's usual case).
 */
class GradingRunnerSemanticsTest {
    @TempDir Path dir;
    Path grade;
    GradingContainerExecutor ex;
    GradingContainerProcess container;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(GradingContainerProcess.unavailable().isEmpty(), () -> "needs " + GradingContainerProcess.unavailable().orElse(""));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Path volume = Files.createDirectories(dir.resolve("volume"));
        Files.setPosixFilePermissions(volume, PosixFilePermissions.fromString("rwxr-xr-x"));
        grade = Files.createDirectories(volume.resolve("trees/grade-1"));
        Files.createDirectories(volume.resolve("trees/results-1"));
        ex = GradingContainerExecutor.listen(volume.resolve("runner.sock"), Duration.ofSeconds(20));
        container = GradingContainerProcess.start(volume, dir, false);
    }

    @AfterEach
    void stop() {
        if (ex != null) ex.close();
        if (container != null) container.close();
    }

    private ExecResult sh(String script, Duration timeout, String stdin, Path channel) {
        return ex.run(new ExecRequest(List.of("/bin/sh", "-c", script), grade, Map.of("PATH", "/usr/bin:/bin"), true, timeout,
                1000, stdin, false, channel));
    }

    @Test
    void timeoutsStdinExitCodesAndBoundedOutput() {
        long t0 = System.nanoTime();
        ExecResult slow = sh("sleep 30", Duration.ofSeconds(1), null, null);
        assertThat(slow.timedOut()).isTrue();
        assertThat(slow.exitCode()).isEqualTo(-1);
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(10_000);
        assertThat(sh("cat; echo err >&2", Duration.ofSeconds(10), "two\nlines\n", null))
                .satisfies(r -> {
                    assertThat(r.stdout()).isEqualTo("two\nlines\n");
                    assertThat(r.stderr()).isEqualTo("err\n");
                    assertThat(r.exitCode()).isZero();
                });
        assertThat(sh("exit 3", Duration.ofSeconds(10), null, null).exitCode()).isEqualTo(3);
        assertThat(sh("kill -9 $$", Duration.ofSeconds(10), null, null).exitCode()).isEqualTo(137);
        ExecResult big = sh("head -c 5000 /dev/zero | tr '\\0' x", Duration.ofSeconds(10), null, null);
        assertThat(big.stdout()).hasSize(1000);
        assertThat(big.truncated()).isTrue();
        assertThat(sh("pwd", Duration.ofSeconds(10), null, null).stdout().strip()).isEqualTo(grade.toString());
    }

    @Test
    void theResultChannelIsFd3AndWhatTheCommandLeftBehindDies() throws Exception {
        ResultChannel channel = ResultChannel.open(dir.resolve("private"));
        ExecResult r = sh("echo one >&3; (setsid sh -c 'sleep 1; echo late >&3; echo late >> \"$HOME\"/x' &); echo two >&3",
                Duration.ofSeconds(10), null, channel.path());
        assertThat(r.exitCode()).isZero();
        ResultChannel.Lines lines = channel.finish(2_000);
        assertThat(lines.lines()).containsExactly("one", "two");
        assertThat(lines.stillOpen()).isFalse(); // the leftover writer was killed with the command
        assertThat(channel.path()).doesNotExist(); // removed before the command ran: no path to open it by
        // the shell expands the glob itself, before it starts anything: what runs then is the runner and this shell
        ExecResult next = sh("for p in /proc/[0-9]*; do echo \"${p#/proc/}\"; done", Duration.ofSeconds(10), null, null);
        assertThat(next.stdout().strip().split("\n")).as("only the runner (PID 1) and this command's shell are left")
                .hasSize(2).contains("1");
        assertThat(sh("ls -A /tmp", Duration.ofSeconds(10), null, null).stdout()).doesNotContain("crucible-cmd-1");
    }
}
