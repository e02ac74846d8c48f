package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.sandbox.Box;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@link OracleWorkers} starts a worker: its interpreter comes up before the trusted side opens the worker's FIFOs
 * (it opens them itself), so that start-up overlaps the trusted side's instead of following its first call. Before,
 * a shell redirect held the exec until then: the box held a shell, not the interpreter, while nobody had called.
 */
class OracleWorkersTest {
    @TempDir Path dir;

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.ok(), "bubblewrap is needed for the oracle's workers: " + a.problem());
    }

    @Test
    void theWorkersInterpreterRunsBeforeAnyoneOpensItsFifos() throws IOException, InterruptedException {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Files.writeString(tree.resolve("calc.py"), "def add(a, b):\n    return a + b\n");
        Path python = Path.of(python3()).toRealPath();
        try (OracleWorkers w = new OracleWorkers(dir.resolve("fifo"), tree, List.of(), dir.resolve("tmp"), python.toString(),
                Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin")))) {
            Optional<ProcessHandle> interpreter = Optional.empty();
            for (int i = 0; i < 600 && interpreter.isEmpty(); i++) { // 60 s at most on a loaded machine
                interpreter = ProcessHandle.current().descendants()
                        .filter(p -> p.info().command().map(c -> Path.of(c).equals(python)).orElse(false))
                        .filter(p -> cmdline(p).contains(dir.resolve("fifo").resolve("w1.in").toString()))
                        .findFirst();
                if (interpreter.isEmpty()) Thread.sleep(100);
            }
            assertThat(w.problem()).isNull();
            assertThat(interpreter).as("the worker's interpreter, started with its FIFOs' paths, while nobody opened them; running: %s",
                    ProcessHandle.current().descendants().map(p -> p.info().command().orElse("?")).toList()).isPresent();
        }
    }

    /** A process's arguments, NUL-separated as /proc has them (ProcessHandle gives none for another user's process). */
    private static List<String> cmdline(ProcessHandle p) {
        try {
            return List.of(Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline")).split("\0"));
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** The interpreter python3 runs (a pyenv shim is a script): the worker's process runs that file. */
    private static String python3() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", "-c", "import os, sys; print(os.path.realpath(sys.executable))").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assumeTrue(p.waitFor() == 0 && Files.isExecutable(Path.of(out)), "python3 is needed: " + out);
        return out;
    }
}
