package dev.crucible.verifier.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scripts copied from CI steps use bash (GitHub's default shell): they run under bash where it exists. */
class ShellTest {
    @TempDir
    Path dir;

    @Test
    void bashSyntaxFromACiStepRuns() {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")) || Files.isExecutable(Path.of("/usr/bin/bash")), "needs bash");
        String script = "set -eo pipefail\nif [[ \"$(cut -d. -f1 <<< \"20.1\")\" -lt 10 ]]; then echo old; else echo new; fi\ntrue | true\necho done";
        ExecResult r = new LocalExecutor().run(new ExecRequest(Shell.argv(script), dir, Map.of("PATH", "/usr/bin:/bin"), true,
                Duration.ofSeconds(20), 4096, null, true));
        assertThat(r.exitCode()).as(r.stdout()).isZero();
        assertThat(r.stdout()).isEqualTo("new\ndone\n");
        ExecResult failed = new LocalExecutor().run(new ExecRequest(Shell.argv("set -eo pipefail\nfalse | true\necho unreachable"), dir,
                Map.of("PATH", "/usr/bin:/bin"), true, Duration.ofSeconds(20), 4096, null, true));
        assertThat(failed.exitCode()).isEqualTo(1);
        assertThat(failed.stdout()).doesNotContain("unreachable");
    }
}
