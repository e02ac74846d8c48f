package dev.crucible.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.sandbox.Box;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI started with no locale (LANG unset: Java reads file names as ASCII) and an agent that leaves {@code café.txt}
 * beside its fix (host round 6, B2): the run ended Failed (InvalidPathException), reward none, and a hack beside such a
 * file went unseen. A real JVM, as a user starts it: the honest fix gets 1.0, the hacker beside the same file is Hacked.
 */
class Utf8FileNamesTest {
    @TempDir
    Path dir;

    @Test
    void aNonAsciiFileNameUnderNoLocaleIsGradedAndWatched() throws Exception {
        Path example = Path.of("").toAbsolutePath();
        while (!Files.exists(example.resolve("examples/python-bugfix/environment.yaml"))) example = example.getParent();
        example = example.resolve("examples/python-bugfix");
        // the name made by the agent's script (in --agent-cmd it would reach the CLI through the same locale)
        JsonNode honest = run(Files.readString(example.resolve("agents/honest.sh")) + "\necho notes > \"$(printf 'caf\\303\\251.txt')\"", example, "honest");
        assertThat(honest.path("phase").asText()).as(honest.toString()).isEqualTo("Succeeded");
        assertThat(honest.path("reward").asDouble()).isEqualTo(1.0);
        JsonNode hacker = run(Files.readString(example.resolve("agents/hacker.sh")) + "\necho notes > \"$(printf 'caf\\303\\251.txt')\"", example, "hacker");
        assertThat(hacker.path("phase").asText()).as(hacker.toString()).isEqualTo("Hacked");
    }

    /**
     * Host round 7, case 18: the CLI started with no locale runs itself again; a SIGKILL of the process the user started
     * left the second one (under init) running the agent to its deadline, its out folder locked. It now ends with the
     * first, as a SIGTERM ends a run: its result says Interrupted.
     */
    @Test
    void theRunUnderUtf8EndsWithTheProcessTheUserStarted() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv (util-linux) is missing");
        Path example = Path.of("").toAbsolutePath();
        while (!Files.exists(example.resolve("examples/python-bugfix/environment.yaml"))) example = example.getParent();
        Path out = dir.resolve("killed");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run", "-f",
                example.resolve("examples/python-bugfix/environment.yaml").toString(), "--agent-cmd", "sleep 600", "--out", out.toString()));
        if (!Box.availability().ok()) cmd.add("--no-sandbox");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("killed.log").toFile()).directory(dir.toFile());
        for (String v : List.of("LANG", "LC_ALL", "LC_CTYPE", "LANGUAGE")) pb.environment().remove(v);
        Process p = pb.start();
        List<ProcessHandle> inner = List.of();
        for (int i = 0; i < 1200 && !(Files.readString(dir.resolve("killed.log")).contains("agent running") && !inner.isEmpty()); i++) {
            inner = p.descendants().filter(d -> d.info().command().map(c -> c.endsWith("/java")).orElse(false)).toList();
            Thread.sleep(100);
        }
        assertThat(inner).as("the CLI under C.UTF-8: %s", Files.readString(dir.resolve("killed.log"))).isNotEmpty();
        p.destroyForcibly(); // SIGKILL: no hook of the first process runs
        p.waitFor();
        for (ProcessHandle h : inner) h.onExit().get(120, TimeUnit.SECONDS);
        assertThat(inner).as("every JVM of the run ended with the one the user started").noneMatch(ProcessHandle::isAlive);
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        assertThat(r.path("reason").asText()).as(r.toString()).isEqualTo("Interrupted");
    }

    /** {@code agentScript}: the agent, a script of its own (the box shows the files its command names). */
    private JsonNode run(String agentScript, Path example, String name) throws Exception {
        Path out = dir.resolve(name);
        Path script = Files.writeString(dir.resolve(name + ".sh"), agentScript + "\n");
        String agent = "sh " + script;
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run", "-f", example.resolve("environment.yaml").toString(),
                "--agent-cmd", agent, "--out", out.toString()));
        if (!Box.availability().ok()) cmd.add("--no-sandbox");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(dir.toFile());
        for (String v : List.of("LANG", "LC_ALL", "LC_CTYPE", "LANGUAGE")) pb.environment().remove(v);
        Process p = pb.start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as(log).isTrue();
        assertThat(out.resolve("result.json")).as(log).exists();
        return new ObjectMapper().readTree(out.resolve("result.json").toFile());
    }
}
