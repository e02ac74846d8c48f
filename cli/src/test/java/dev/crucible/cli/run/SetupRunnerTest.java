package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.environment.SetupSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Setup's HOME (the environment's prefix) is shared by attempts; what a step writes to its user config is not. */
class SetupRunnerTest {
    @TempDir
    Path dir;

    @Test
    void aSecondAttemptsSetupDoesNotSeeTheUserConfigTheFirstWrote() throws Exception {
        Path home = Files.createDirectories(dir.resolve("prefix/home"));
        Path ws = Files.createDirectories(dir.resolve("ws"));
        SetupSpec s = new SetupSpec();
        // as jshttp's CI: configure npm one way or the other depending on what the user config says now
        s.script = "if [ -f \"$HOME/.npmrc\" ]; then echo 'saw the last attempt'\"'\"'s config'; exit 3; fi\necho package-lock=false > \"$HOME/.npmrc\"";
        for (int attempt = 1; attempt <= 2; attempt++) {
            SetupRunner.Outcome o = SetupRunner.run(s, ws, Map.of("HOME", home.toString(), "PATH", "/usr/bin:/bin"), Duration.ofMinutes(1),
                    dir.resolve("setup-" + attempt + ".log"), pid -> { });
            assertThat(o.exitCode()).as("attempt " + attempt + ": " + Files.readString(dir.resolve("setup-" + attempt + ".log"))).isZero();
        }
        assertThat(home.resolve(".npmrc")).hasContent("package-lock=false");
    }

    /**
     * Setup's output reaches setup.log while the script runs: a derive batch that stops the run at its limit (the JVM
     * killed, so nothing is written at the end) leaves the log of the step setup was in, where it left the provisioning line.
     */
    @Test
    void setupLogShowsTheOutputWhileTheScriptStillRuns() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path log = dir.resolve("setup.log");
        Files.writeString(log, "$ provisioning\n");
        SetupSpec s = new SetupSpec();
        s.script = "echo '# step 2: pip install -e .'\nsleep 60\necho never";
        s.timeoutSeconds = 120;
        long[] pid = {-1};
        var run = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return SetupRunner.run(s, ws, Map.of("PATH", "/usr/bin:/bin"), Duration.ofMinutes(5), log, p -> pid[0] = p);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos(); // a loaded machine starts the shell late
        while (!Files.readString(log).contains("# step 2") && System.nanoTime() < until) Thread.sleep(50);
        assertThat(run).as("the script is still running (sleep 60)").isNotDone();
        assertThat(Files.readString(log)).startsWith("$ provisioning\n").contains("# step 2: pip install -e .");
        ProcessHandle.of(pid[0]).ifPresent(ProcessHandle::destroyForcibly); // as a batch stopping the run would
        run.get();
        assertThat(Files.readString(log)).doesNotContain("never");
    }

    @Test
    void aSetupStoppedAtItsLimitSaysSoInItsLog() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path log = dir.resolve("setup.log");
        SetupSpec s = new SetupSpec();
        s.script = "echo 'installing'\nsleep 60";
        s.timeoutSeconds = 2;
        SetupRunner.Outcome o = SetupRunner.run(s, ws, Map.of("PATH", "/usr/bin:/bin"), Duration.ofMinutes(5), log, p -> { });
        assertThat(o.timedOut()).isTrue();
        assertThat(Files.readString(log)).contains("installing").contains("[setup stopped at its limit of 2 s]");
    }
}
