package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C and SIGTERM: the CLI in its own JVM gets the signal while the agent runs; the agent dies and result.json is still
 * written, with no finding against an agent that touched nothing (SIGTERM's exit hooks once removed the attempt's pristine
 * copy under its monitor: critical grader-tampering findings on an untouched workspace, in 3 of 7 tries).
 */
@Timeout(180)
class InterruptTest {

    @Test
    void sigintStopsTheAgentAndStillWritesTheResult(@TempDir Path dir) throws Exception {
        interrupt(dir, "INT", 130);
    }

    @Test
    void sigtermStopsTheAgentAndStillWritesTheResultWithoutFindings(@TempDir Path dir) throws Exception {
        interrupt(dir, "TERM", 143);
    }

    private static void interrupt(Path dir, String signal, int exit) throws Exception {
        String marker = "876.543" + ProcessHandle.current().pid();
        Path out = dir.resolve("out");
        Path log = dir.resolve("cli.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // SIGINT back to its default first: a test JVM started in the background (nohup, `&` without job
        // control) passes SIGINT on as ignored, and a JVM that inherits it ignored never sees Ctrl-C.
        Process cli = new ProcessBuilder(List.of("python3", "-c",
                "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])",
                java, "-cp", System.getProperty("java.class.path"), RunCommand.class.getName(),
                "-f", LocalRuns.example().toString(), "--agent-cmd", "sleep " + marker, "--out", out.toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(new File("/dev/null")).start();
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!(Files.exists(log) && Files.readString(log).contains("Running: agent")) || LocalRuns.processesWith(marker) == 0) {
                assertThat(cli.isAlive()).as(Files.readString(log)).isTrue();
                assertThat(System.nanoTime()).as("agent never started: " + Files.readString(log)).isLessThan(until);
                Thread.sleep(100);
            }
            new ProcessBuilder("kill", "-" + signal, Long.toString(cli.pid())).start().waitFor();
            assertThat(cli.waitFor(60, TimeUnit.SECONDS)).as(Files.readString(log)).isTrue();
            assertThat(cli.exitValue()).as(Files.readString(log)).isEqualTo(exit);
        } finally {
            cli.destroyForcibly();
        }
        JsonNode res = LocalRuns.json(out.resolve("result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("Failed");
        assertThat(res.path("reason").asText()).isEqualTo("Interrupted");
        assertThat(res.path("findings").findValuesAsText("detector")).as("an idle agent's findings: " + res.path("findings"))
                .doesNotContain("grader-tampering");
        assertThat(LocalRuns.processesWith(marker)).isZero();
        assertThat(Files.readString(log)).contains("interrupted: stopping the agents");
    }
}
