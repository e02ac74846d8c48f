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
 * Ctrl-C, SIGTERM and SIGHUP: the CLI in its own JVM gets the signal while the agent runs; the agent dies and result.json is
 * still written, with no finding against an agent that touched nothing (SIGTERM's exit hooks once removed the attempt's
 * pristine copy under its monitor: critical grader-tampering findings on an untouched workspace, in 3 of 7 tries). Its
 * message names the signal and the phase it came in (SIGHUP was "a signal (SIGINT or SIGTERM)", grading "before grading").
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

    @Test
    void sighupIsNamedAsSighup(@TempDir Path dir) throws Exception {
        interrupt(dir, "HUP", 129);
    }

    /** The agent ends at once; grading sleeps (the environment's conftest.py) and SIGTERM comes during it. */
    @Test
    void sigtermDuringGradingSaysSo(@TempDir Path dir) throws Exception {
        Path env = LocalRuns.copyExample(dir.resolve("env"), null);
        Files.writeString(env.resolve("workspace/conftest.py"), "import time\ntime.sleep(120)\n");
        Path out = dir.resolve("out");
        Path log = dir.resolve("cli.log");
        Process cli = start(env, "true", out, log);
        try {
            awaitLine(cli, log, "Verifying: grading");
            Thread.sleep(2000); // grading is in pytest's collection, asleep in conftest.py
            signal(cli, log, "TERM", 143);
        } finally {
            cli.destroyForcibly();
        }
        JsonNode res = LocalRuns.json(out.resolve("result.json"));
        assertThat(res.path("reason").asText()).isEqualTo("Interrupted");
        assertThat(res.path("message").asText()).isEqualTo("stopped by SIGTERM during grading (Verifying); the grade is not recorded");
    }

    /** The CLI in its own JVM, SIGINT back to its default (a test JVM in the background passes it on ignored: Ctrl-C never seen). */
    private static Process start(Path env, String agent, Path out, Path log) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(List.of("python3", "-c",
                "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])",
                java, "-cp", System.getProperty("java.class.path"), RunCommand.class.getName(),
                "-f", env.toString(), "--agent-cmd", agent, "--out", out.toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(new File("/dev/null")).start();
    }

    private static void awaitLine(Process cli, Path log, String line) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!(Files.exists(log) && Files.readString(log).contains(line))) {
            assertThat(cli.isAlive()).as(Files.readString(log)).isTrue();
            assertThat(System.nanoTime()).as(line + " never came: " + Files.readString(log)).isLessThan(until);
            Thread.sleep(100);
        }
    }

    private static void signal(Process cli, Path log, String signal, int exit) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(cli.pid())).start().waitFor();
        assertThat(cli.waitFor(60, TimeUnit.SECONDS)).as(Files.readString(log)).isTrue();
        assertThat(cli.exitValue()).as(Files.readString(log)).isEqualTo(exit);
        assertThat(Files.readString(log)).contains("interrupted: stopping the agents", "SIG" + signal + " received");
    }

    private static void interrupt(Path dir, String signal, int exit) throws Exception {
        String marker = "876.543" + ProcessHandle.current().pid();
        Path out = dir.resolve("out");
        Path log = dir.resolve("cli.log");
        Process cli = start(LocalRuns.example(), "sleep " + marker, out, log);
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!(Files.exists(log) && Files.readString(log).contains("Running: agent")) || LocalRuns.processesWith(marker) == 0) {
                assertThat(cli.isAlive()).as(Files.readString(log)).isTrue();
                assertThat(System.nanoTime()).as("agent never started: " + Files.readString(log)).isLessThan(until);
                Thread.sleep(100);
            }
            signal(cli, log, signal, exit);
        } finally {
            cli.destroyForcibly();
        }
        JsonNode res = LocalRuns.json(out.resolve("result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("Failed");
        assertThat(res.path("reason").asText()).isEqualTo("Interrupted");
        assertThat(res.path("findings").findValuesAsText("detector")).as("an idle agent's findings: " + res.path("findings"))
                .doesNotContain("grader-tampering");
        assertThat(LocalRuns.processesWith(marker)).isZero();
        // the signal it got, by name, and when: SIGTERM's result said "Ctrl-C", SIGHUP's "SIGINT or SIGTERM"
        assertThat(res.path("message").asText()).isEqualTo("stopped by SIG" + signal + " while the agent ran (Running), before grading");
    }
}
