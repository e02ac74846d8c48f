package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.OrphanVolumes;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SIGKILLed {@code crucible run} or {@code crucible verify} leaves no isolated-oracle worker behind (issue 33). The real CLI in its own JVM
 * grades an agent's tree whose import sleeps, so grading is in progress with the worker busy when the CLI is killed;
 * then no process whose command line names the run's folders may survive (the worker's box, its interpreter, the
 * grading box). Before, the workers' bubblewrap was re-parented to init: its --die-with-parent followed the JVM
 * thread that spawned it, not the CLI, and nothing else ended it.
 */
@Timeout(300)
class KilledRunTest {
    @Test
    void sigkillOfRunMidGradeLeavesNoWorker(@TempDir Path dir) throws Exception {
        assumeTrue(Box.availability().ok(), "the oracle's workers run in bubblewrap boxes: " + Box.availability().problem());
        // the tree's package sleeps at import: the worker is in that import when the CLI dies
        String agent = "echo '" + SLEEP + "' >> calc/__init__.py";
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("killed", "embedded", agent, 120)));
        killMidGrade(dir, List.of(RunCommand.class.getName(), "-f", env.toString(), "--out", dir.resolve("out").toString()));
    }

    @Test
    void sigkillOfVerifyMidGradeLeavesNoWorker(@TempDir Path dir) throws Exception {
        assumeTrue(Box.availability().ok(), "the oracle's workers run in bubblewrap boxes: " + Box.availability().problem());
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), null));
        Path ws = env.resolve("workspace");
        Files.writeString(ws.resolve("calc/__init__.py"), SLEEP + "\n", java.nio.file.StandardOpenOption.APPEND);
        killMidGrade(dir, List.of(dev.crucible.cli.Main.class.getName(), "verify", "-f", env.resolve("environment.yaml").toString(), "--workspace", ws.toString()));
    }

    /**
     * Setup runs outside the box as the CLI's user: a SIGKILL of a root CLI during setup left setup's shell and its
     * {@code sleep} under init, and the next run set the prefix up again while they ran (host round 8, cases 26, 27).
     * Now setup's whole tree ends with the CLI (TiedProcessTree).
     */
    @Test
    void sigkillDuringSetupLeavesNoSetupProcess(@TempDir Path dir) throws Exception {
        assumeTrue(Box.ROOT && TiedProcessTree.available(), "setup's tree is tied to the CLI by a PID namespace: root and unshare --pid are needed");
        Path env = LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("killed", "embedded", "true", 120));
        Path m = env.resolve("environment.yaml");
        Files.writeString(m, Files.readString(m).replace("python3 -m pip --version >/dev/null 2>&1 || true",
                "sleep 877.25 & sleep 877.5; echo setup-done"));
        Path log = dir.resolve("cli.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), RunCommand.class.getName(), "-f", env.toString(),
                "--out", dir.resolve("out").toString()).redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(new File("/dev/null")).start();
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
            while (sleepers().size() < 2) {
                assertThat(p.isAlive()).as("the CLI ended before setup slept: %s", read(log)).isTrue();
                assertThat(System.nanoTime()).as("setup never started: %s", read(log)).isLessThan(until);
                Thread.sleep(100);
            }
        } finally {
            p.destroyForcibly(); // SIGKILL: no shutdown hook runs
        }
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<Long> left = sleepers();
        for (int i = 0; i < 100 && !left.isEmpty(); i++) {
            Thread.sleep(100);
            left = sleepers();
        }
        try {
            assertThat(left).as("setup's processes alive 10 s after the CLI's SIGKILL; log:\n%s", read(log)).isEmpty();
        } finally {
            left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            OrphanVolumes.sweep(); // the killed CLI's disk volume, as its next start would
        }
    }

    private static List<Long> sleepers() {
        return ProcessHandle.allProcesses().map(ProcessHandle::pid).filter(pid -> cmdline(pid).startsWith("sleep\u0000877.")).toList();
    }

    private static final String SLEEP = "import time; time.sleep(876.875)";

    /** Starts the CLI ({@code args}: main class and arguments) in its own JVM, SIGKILLs it once a worker serves, checks nothing is left. */
    private static void killMidGrade(Path dir, List<String> args) throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        for (Path d : List.of(dir, tmp)) {
            Files.setPosixFilePermissions(d, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Path log = dir.resolve("cli.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> argv = new java.util.ArrayList<>(List.of(java, "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path")));
        argv.addAll(args);
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(new File("/dev/null")).start();
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
            while (workers(dir).isEmpty()) {
                assertThat(p.isAlive()).as("the CLI ended before grading started a worker: %s", read(log)).isTrue();
                assertThat(System.nanoTime()).as("no oracle worker started: %s", read(log)).isLessThan(until);
                Thread.sleep(100);
            }
            Thread.sleep(1500); // the trusted side has asked: the worker is in the tree's import
            assertThat(workers(dir)).as("a worker runs before the kill").isNotEmpty();
        } finally {
            p.destroyForcibly(); // SIGKILL: no shutdown hook runs
        }
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<String> left = List.of();
        for (int i = 0; i < 100; i++) { // ending a box takes its processes a moment on a loaded machine
            left = survivors(dir);
            if (left.isEmpty()) break;
            Thread.sleep(100);
        }
        try {
            assertThat(left).as("processes of the SIGKILLed CLI still alive 10 s later; log:\n%s", read(log)).isEmpty();
        } finally {
            // a failed run's leftovers are ended here, not left to the machine
            ProcessHandle.allProcesses().filter(h -> cmdline(h.pid()).contains(dir.toString()) && h.pid() != ProcessHandle.current().pid())
                    .forEach(ProcessHandle::destroyForcibly);
            OrphanVolumes.sweep(); // the killed CLI's disk volume (a loop mount under OUT), as its next start would
        }
    }

    /** The isolated oracle's workers of this run: their command lines name their request FIFO in the run's folder. */
    private static List<Long> workers(Path dir) {
        return ProcessHandle.allProcesses().map(ProcessHandle::pid)
                .filter(pid -> cmdline(pid).contains(dir.toString()) && cmdline(pid).contains("/fifo/w1.in")).toList();
    }

    /** Every process (the test's own excepted) whose command line names the run's folder, with that command line. */
    private static List<String> survivors(Path dir) {
        long self = ProcessHandle.current().pid();
        return ProcessHandle.allProcesses().filter(h -> h.pid() != self && cmdline(h.pid()).contains(dir.toString()))
                .map(h -> h.pid() + " " + cmdline(h.pid()).replace('\0', ' '))
                .map(s -> s.length() > 300 ? s.substring(0, 300) + "..." : s).toList();
    }

    private static String cmdline(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static String read(Path f) {
        try {
            return Files.exists(f) ? Files.readString(f) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
