package dev.crucible.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.pristine.TreeCopy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host round 9, case 26v: SIGTERM of {@code crucible verify} while it grades did no cleanup: it left the episode's state
 * folder (the grading copy, 44-61 MB for 100,000 files), a box's staging folder and the box's cgroups. A real CLI process,
 * its own temporary folder, a hidden test that sleeps so that the signal comes while a graded command runs.
 */
@Timeout(180)
class VerifySignalTest {
    @TempDir
    Path dir;

    @Test
    void sigtermWhileGradingKillsTheBoxesAndRemovesWhatGradingMade() throws Exception {
        Assumptions.assumeTrue(dev.crucible.verifier.sandbox.Box.availability().ok(), "verify grades in a bubblewrap box: "
                + dev.crucible.verifier.sandbox.Box.availability().problem());
        Path env = dir.resolve("env");
        TreeCopy.copy(VerifyCommandTest.example(), env);
        Path tests = env.resolve("workspace/tests/test_ops.py");
        Files.writeString(tests, Files.readString(tests).replace("def test_add():\n", "def test_add():\n    import time\n    time.sleep(120)\n"));
        Path ws = dir.resolve("finished");
        TreeCopy.copy(env.resolve("workspace"), ws);
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path log = dir.resolve("verify.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx512m", "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"),
                "dev.crucible.cli.Main", "verify", "-f", env.resolve("environment.yaml").toString(), "--workspace", ws.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (p.isAlive() && System.nanoTime() < until && !sleeping(p)) Thread.sleep(200);
            assertThat(sleeping(p)).as("the graded test is running: " + Files.readString(log)).isTrue();
            assertThat(crucibleEntries(tmp)).as("grading made its folders here").isNotEmpty();
            new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("verify ended after SIGTERM").isTrue();
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(out).isEqualTo(143);
            assertThat(crucibleEntries(tmp)).as("left in its temporary folder: " + out).isEmpty();
            Thread.sleep(1000);
            assertThat(ProcessHandle.allProcesses().filter(h -> h.info().commandLine().orElse("").contains(dir.toString())).map(h -> h.info().commandLine().orElse(""))
                    .toList()).as("its graded processes").isEmpty();
            assertThat(cgroups(p.pid())).as("its boxes' cgroups").isEmpty();
            assertThat(out).contains("stopped by a signal while grading");
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    /** Whether a process of the CLI's tree runs the hidden test's sleep (pytest in the box). */
    private static boolean sleeping(Process p) {
        return ProcessHandle.allProcesses().anyMatch(h -> h.info().commandLine().orElse("").contains("pytest")
                && h.parent().isPresent() && isUnder(h, p.pid()));
    }

    private static boolean isUnder(ProcessHandle h, long pid) {
        for (ProcessHandle c = h; c != null; c = c.parent().orElse(null)) if (c.pid() == pid) return true;
        return false;
    }

    private static List<Path> crucibleEntries(Path tmp) throws Exception {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(f -> f.getFileName().toString().startsWith("crucible-")).toList();
        }
    }

    private static List<Path> cgroups(long pid) {
        java.util.regex.Pattern box = java.util.regex.Pattern.compile("(crucible-)?box-" + pid + "(-\\d+)+");
        try (Stream<Path> s = Files.walk(Path.of("/sys/fs/cgroup"), 3)) {
            return s.filter(d -> box.matcher(d.getFileName().toString()).matches()).toList();
        } catch (Exception noCgroups) {
            return List.of();
        }
    }
}
