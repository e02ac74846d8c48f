package dev.crucible.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.pristine.TreeCopy;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;

/** Test support: the repository's examples, copies of them with edited manifests, and running {@code crucible run} in-process. */
public final class LocalRuns {
    record Run(int exit, String out, String err) {}

    private LocalRuns() {}

    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (!Files.exists(p.resolve("examples/python-bugfix/environment.yaml"))) p = p.getParent();
        return p;
    }

    static Path example() { return root().resolve("examples/python-bugfix"); }

    static Path agent(String name) { return example().resolve("agents").resolve(name); }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new RunCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** A copy of the example's environment and workspace in {@code dir}, with {@code rollout} as its Rollout manifest (null: none). */
    static Path copyExample(Path dir, String rollout) throws IOException {
        Files.createDirectories(dir);
        Files.copy(example().resolve("environment.yaml"), dir.resolve("environment.yaml"));
        TreeCopy.copy(example().resolve("workspace"), dir.resolve("workspace"));
        if (rollout != null) Files.writeString(dir.resolve("rollout.yaml"), rollout);
        return dir;
    }

    /** Drops the example's setup script (it only checks pip, and a pyenv shim can take seconds on a loaded machine). */
    static Path withoutSetup(Path envDir) throws IOException {
        Path m = envDir.resolve("environment.yaml");
        Files.writeString(m, Files.readString(m).replace("python3 -m pip --version >/dev/null 2>&1 || true", "true"));
        return envDir;
    }

    static String rollout(String name, String mode, String command, int maxSeconds) {
        return """
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata:
                  name: %s
                spec:
                  environmentRef:
                    name: calc-divide-bugfix
                  mode: %s
                %s  limits:
                    maxDurationSeconds: %d
                """.formatted(name, mode, command == null ? "" : "  agent:\n    command: [\"sh\", \"-c\", \"" + command + "\"]\n", maxSeconds);
    }

    static JsonNode json(Path file) throws IOException { return new ObjectMapper().readTree(file.toFile()); }

    /** Processes whose command line contains {@code marker} (a leftover agent, if any). */
    public static long processesWith(String marker) {
        return ProcessHandle.allProcesses().filter(p -> {
            try {
                return Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline")).contains(marker);
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }).filter(p -> p.pid() != ProcessHandle.current().pid()).count();
    }
}
