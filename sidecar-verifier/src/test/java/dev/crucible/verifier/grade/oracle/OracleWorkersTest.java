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
        try (OracleWorkers w = new OracleWorkers(dir.resolve("fifo"), dir.resolve("spawn"), tree, List.of(), dir.resolve("tmp"), python.toString(),
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

    /**
     * The request FIFO starts and ends workers: a worker that could open it could start up to 64 more or end the
     * others (red-team round 5, y17, found it writable inside the worker's box, which bound the whole FIFO folder).
     * Read from the worker's own bubblewrap command line: no folder the box binds holds the spawn FIFO.
     */
    @Test
    void theWorkersBoxShowsNoSpawnFifo() throws IOException, InterruptedException {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Files.writeString(tree.resolve("calc.py"), "def add(a, b):\n    return a + b\n");
        Path spawn = dir.resolve("spawn");
        Path in = dir.resolve("fifo").resolve("w1.in");
        try (OracleWorkers w = new OracleWorkers(dir.resolve("fifo"), spawn, tree, List.of(), dir.resolve("tmp"), python3(),
                Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin")))) {
            List<String> box = List.of();
            for (int i = 0; i < 600 && box.isEmpty(); i++) { // 60 s at most on a loaded machine
                box = ProcessHandle.current().descendants().map(OracleWorkersTest::cmdline)
                        .filter(a -> a.contains("--ro-bind") && a.contains(in.toString())).findFirst().orElse(List.of());
                if (box.isEmpty()) Thread.sleep(100);
            }
            assertThat(w.problem()).isNull();
            assertThat(box).as("the worker's bubblewrap command line").isNotEmpty();
            assertThat(Files.getAttribute(spawn, "unix:mode")).as("the spawn FIFO is made where asked").matches(m -> ((Integer) m & 0170000) == 0010000);
            List<Path> shown = new java.util.ArrayList<>();
            for (int i = 0; i + 2 < box.size(); i++) {
                if (List.of("--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try").contains(box.get(i))) shown.add(Path.of(box.get(i + 2)));
            }
            assertThat(shown).as("the box shows the worker's FIFO folder").contains(dir.resolve("fifo"));
            assertThat(shown).as("no bind of the worker's box holds the spawn FIFO %s", spawn).noneMatch(spawn::startsWith);
        }
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new OracleWorkers(dir.resolve("fifo2"),
                dir.resolve("fifo2").resolve("spawn"), tree, List.of(), dir.resolve("tmp"), "python3", Map.of()), "a spawn FIFO in the workers' folder is refused");
    }

    /**
     * Host round 5, B1: code under test held 3.7 GB in a worker while the agent's box and the graded command's had 1 GiB.
     * The worker's box takes the grading box's memory limit: a cgroup's memory.max where the box has one, else
     * RLIMIT_AS, read from the host for the worker's own interpreter.
     */
    @Test
    void aWorkerHoldsNoMoreMemoryThanTheGradingBox() throws IOException, InterruptedException {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Files.writeString(tree.resolve("calc.py"), "def add(a, b):\n    return a + b\n");
        Path python = Path.of(python3()).toRealPath();
        long limit = 256L << 20;
        try (OracleWorkers w = new OracleWorkers(dir.resolve("fifo"), dir.resolve("spawn"), tree, List.of(), dir.resolve("tmp"), python.toString(),
                Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin")), null, List.of(), dir.resolve("tmp"), limit)) {
            Optional<ProcessHandle> worker = Optional.empty();
            for (int i = 0; i < 600 && worker.isEmpty(); i++) { // 60 s at most on a loaded machine
                worker = ProcessHandle.current().descendants()
                        .filter(p -> p.info().command().map(c -> Path.of(c).equals(python)).orElse(false))
                        .filter(p -> cmdline(p).contains(dir.resolve("fifo").resolve("w1.in").toString()))
                        .findFirst();
                if (worker.isEmpty()) Thread.sleep(100);
            }
            assertThat(w.problem()).isNull();
            assertThat(worker).as("the worker's interpreter").isPresent();
            assertThat(memoryBound(worker.get().pid())).as("the worker's memory bound (cgroup memory.max, else RLIMIT_AS); its cgroup: %s", Files.readString(Path.of("/proc", Long.toString(worker.get().pid()), "cgroup"))).isEqualTo(limit);
        }
    }

    /**
     * A box the grader will not start (here: past its limit of boxes) is refused in words, {@code NAME.failed} in the FIFO
     * folder, which the relay and the trusted side read at once: before, they waited out their start timeout (30 s) and
     * failed with "no box ... came up", the cause unsaid.
     */
    @Test
    void aRefusedBoxIsRefusedInWordsAtOnce() throws IOException, InterruptedException {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Files.writeString(tree.resolve("calc.py"), "def add(a, b):\n    return a + b\n");
        Path spawn = dir.resolve("spawn");
        try (OracleWorkers w = new OracleWorkers(dir.resolve("fifo"), spawn, tree, List.of(), dir.resolve("tmp"), python3(),
                Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin")))) {
            w.capacity = 1; // worker 1, started with the grading, fills it
            try (java.io.OutputStream o = Files.newOutputStream(spawn, java.nio.file.StandardOpenOption.WRITE)) {
                o.write("c4242\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            }
            Path failed = dir.resolve("fifo").resolve("c4242.failed");
            for (int i = 0; i < 300 && !Files.exists(failed); i++) Thread.sleep(100);
            assertThat(failed).as("the refusal, in the folder the relay waits in").exists();
            assertThat(Files.readString(failed)).contains("already runs 1 boxes");
            assertThat(Files.getAttribute(failed, "unix:mode")).as("readable by the grading box's uid").matches(m -> ((Integer) m & 0004) != 0);
            assertThat(dir.resolve("fifo").resolve("c4242.in")).as("no box was started for it").doesNotExist();
        }
    }

    /**
     * The tightest of the process's cgroup memory limit (read on the host: v2 memory.max, or v1's memory controller
     * memory.limit_in_bytes) and its RLIMIT_AS; -1 when none binds.
     */
    private static long memoryBound(long pid) throws IOException {
        long bound = -1;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
            String[] f = line.split(":", 3);
            Path file = f[0].equals("0") && f[1].isEmpty() ? Path.of("/sys/fs/cgroup" + f[2], "memory.max")
                    : List.of(f[1].split(",")).contains("memory") ? Path.of("/sys/fs/cgroup/memory" + f[2], "memory.limit_in_bytes") : null;
            if (file == null || !Files.isReadable(file)) continue;
            String v = Files.readString(file).strip();
            if (v.equals("max") || Long.parseLong(v) >= Long.MAX_VALUE / 2) continue; // v1 says "no limit" with a huge number
            bound = bound < 0 ? Long.parseLong(v) : Math.min(bound, Long.parseLong(v));
        }
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "limits"))) {
            if (!line.startsWith("Max address space")) continue;
            String soft = line.substring("Max address space".length()).strip().split("\\s+")[0];
            if (!soft.equals("unlimited")) bound = bound < 0 ? Long.parseLong(soft) : Math.min(bound, Long.parseLong(soft));
        }
        return bound;
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
