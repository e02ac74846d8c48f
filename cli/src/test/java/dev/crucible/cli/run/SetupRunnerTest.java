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
}
