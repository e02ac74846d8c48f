package dev.crucible.cli.derive;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.cli.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/** Runs the crucible command line in this JVM and keeps what it printed, for the derive tests. */
final class CliInProcess {
    record Result(int exit, String out, String err) {
    }

    private CliInProcess() {}

    static Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }

    /** {@code crucible run} of {@code manifest} with {@code agent} into {@code dir}/out-NAME (exit 0 asserted); its result.json. */
    static JsonNode run(Path dir, Path manifest, String agent, String name) throws IOException {
        Path out = dir.resolve("out-" + name);
        Result run = cli("run", "-f", manifest.toString(), "--agent-cmd", agent, "--out", out.toString());
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        try (var files = Files.walk(out)) {
            Path result = files.filter(p -> p.getFileName().toString().equals("result.json")).findFirst().orElseThrow();
            return new ObjectMapper().readTree(result.toFile());
        }
    }

    /** A bash script in {@code cwd} (a test's own set-up: uv, git); its exit status, -1 past 300 s; its output on stderr when it fails. */
    static int sh(Path cwd, String script) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of("bash", "-c", script)).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        if (p.exitValue() != 0) System.err.println(out);
        return p.exitValue();
    }
}
