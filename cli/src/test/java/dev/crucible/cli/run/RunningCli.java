package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.contract.PhaseName;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Test support: the real CLI in its own JVM (its temporary folder its own, so its state folders can be counted) on a copy of
 * the example, with a rollout running {@code agent} under {@code deadline} seconds; what it left is checked on the host
 * ({@link RunEndsTest}).
 */
record RunningCli(Process p, Path out, Path logFile, Path tmp, String marker) {
    static RunningCli start(Path dir, String agent, int deadline) throws Exception { return start(dir, agent, deadline, 120); }

    static RunningCli start(Path dir, String agent, int deadline, int gradingTimeout) throws Exception {
        String marker = agent.replaceAll(".*sleep ", "");
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("ends", "embedded", agent, deadline)));
        Path manifest = env.resolve("environment.yaml");
        Files.writeString(manifest, Files.readString(manifest).replace("    timeoutSeconds: 120\n", "    timeoutSeconds: " + gradingTimeout + "\n"));
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        for (Path d : List.of(dir, tmp)) { // the boxes' staging folders go here too: their uids must get through
            Files.setPosixFilePermissions(d, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Path out = dir.resolve("out");
        Path log = dir.resolve("cli.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"),
                RunCommand.class.getName(), "-f", env.toString(), "--out", out.toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(new File("/dev/null")).start();
        return new RunningCli(p, out, log, tmp, marker);
    }

    String log() throws Exception { return Files.exists(logFile) ? Files.readString(logFile) : ""; }

    void awaitRunning() throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!log().contains("Running: agent") || LocalRuns.processesWith(marker) == 0) {
            assertThat(p.isAlive()).as(log()).isTrue();
            assertThat(System.nanoTime()).as("the agent never started: " + log()).isLessThan(until);
            Thread.sleep(100);
        }
    }

    /** Waits until the CLI's own output says {@code text} (e.g. that grading started). */
    void awaitLog(String text) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!log().contains(text)) {
            assertThat(p.isAlive()).as(log()).isTrue();
            assertThat(System.nanoTime()).as("the CLI never said " + text + ": " + log()).isLessThan(until);
            Thread.sleep(100);
        }
    }

    void awaitAgentLog(String text) throws Exception {
        Path agentLog = out.resolve("agent.log");
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!(Files.exists(agentLog) && Files.readString(agentLog).contains(text))) {
            assertThat(System.nanoTime()).as("agent.log never said " + text + ": " + log() + "\nagent.log:\n"
                    + (Files.exists(agentLog) ? Files.readString(agentLog) : "(none)")).isLessThan(until);
            Thread.sleep(100);
        }
    }

    void signal(String sig) throws Exception {
        new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).start().waitFor();
    }

    /** The exit status, or fails (killing the CLI) when it is still running after {@code seconds}. */
    int awaitExit(long seconds) throws Exception {
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("the CLI was still running after " + seconds + " s:\n" + log());
        }
        return p.exitValue();
    }

    /** result.json has this phase and reason (null: any), and nothing of the run is left on the host. */
    JsonNode assertEnded(PhaseName phase, String reason) throws Exception {
        Path result = out.resolve("result.json");
        assertThat(result).as(log()).exists();
        JsonNode res = LocalRuns.json(result);
        if (phase != null) assertThat(res.path("phase").asText()).as(log()).isEqualTo(phase.name());
        if (reason != null) assertThat(res.path("reason").asText()).as(log()).isEqualTo(reason);
        assertThat(LocalRuns.processesWith(marker)).as("agent processes left").isZero();
        try (Stream<Path> s = Files.list(tmp)) {
            assertThat(s.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("crucible-state-")).toList())
                    .as("state folders left in the CLI's temporary folder").isEmpty();
        }
        try (Stream<Path> s = Files.walk(out)) {
            assertThat(s.filter(f -> f.getFileName().toString().equals(".crucible-state")).toList()).as("state folders left under OUT").isEmpty();
        }
        assertThat(LeftoverBoxes.find(LeftoverBoxes.ROOT, p.pid())).as("cgroups of the CLI's boxes left").isEmpty();
        assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).as("mounts left under OUT").doesNotContain(" " + out + "/")
                .doesNotContain(" " + out + " ");
        return res;
    }
}
