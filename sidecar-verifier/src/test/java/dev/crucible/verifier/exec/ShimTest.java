package dev.crucible.verifier.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.exec.shim.ShimExecutor;
import dev.crucible.verifier.exec.shim.ShimServer;
import dev.crucible.verifier.support.Fixtures;
import dev.crucible.verifier.tools.ToolCall;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The in-container exec shim over a real Unix socket, and a whole episode graded through it. */
class ShimTest {
    @TempDir
    Path dir;

    @Test
    void runsCommandsReportsPidsAndKillsOnTimeout() throws Exception {
        try (ShimServer server = new ShimServer(dir.resolve("exec.sock"), false)) {
            server.start();
            ShimExecutor ex = new ShimExecutor(dir.resolve("exec.sock"));
            AtomicLong pid = new AtomicLong();
            ExecResult r = ex.run(ExecRequest.shell("echo hello; echo oops >&2; exit 3", dir, Duration.ofSeconds(10)), pid::set);
            assertThat(r.exitCode()).isEqualTo(3);
            assertThat(r.stdout()).contains("hello").contains("oops");
            assertThat(pid.get()).isEqualTo(r.pid()).isPositive();
            ExecResult slow = ex.run(ExecRequest.shell("sleep 30", dir, Duration.ofMillis(500)));
            assertThat(slow.timedOut()).isTrue();
            ExecResult in = ex.run(new ExecRequest(List.of("cat"), dir, Map.of(), true, Duration.ofSeconds(5), 100, "from stdin", false));
            assertThat(in.stdout()).isEqualTo("from stdin");
        }
    }

    @Test
    void episodeThroughTheShimGradesAndKillsLeftovers() throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir.resolve("env")));
        try (ShimServer server = new ShimServer(dir.resolve("exec.sock"), false)) {
            server.start();
            ShimExecutor ex = new ShimExecutor(dir.resolve("exec.sock"));
            try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(),
                    EpisodeOptions.defaults().withIntervals(Duration.ofMillis(200), Duration.ofMillis(50)).withExecutor(ex).withGradingDir(dir.resolve("grading")))) {
                ep.reset();
                ep.step(new ToolCall("edit", Map.of("path", "calc/ops.py", "old_str", "    return abs(a) / abs(b)",
                        "new_str", "    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b")));
                VerifyReport r = ep.verify();
                assertThat(r.reward()).as(r.reason()).isEqualTo(1.0);
                assertThat(r.hackFindings()).isEmpty();
            }
        }
    }
}
