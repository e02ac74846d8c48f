package dev.crucible.verifier.exec.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.contract.GradingContainer;
import dev.crucible.contract.OracleContainer;
import dev.crucible.verifier.grade.oracle.WorkerHost;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar's end of the oracle-worker container with the real spawner ({@code contract/oracle_spawner.py}) as a
 * process: the tree copy the workers see has no trusted test file, the FIFO folder is not the workers' to change,
 * worker 1 starts at once and a "-1" on the request FIFO (in the results folder, relayed by the sidecar) ends it, and the grading's end ends every worker. (What the
 * container hides, its mounts and PID namespace, is RealNodeTest's: a local process shares this machine's.)
 */
class OracleContainerHostTest {
    @TempDir Path dir;

    @Test
    void aGradingIsServedFromATreeWithoutItsTestsAndEndsWithItsWorkers() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "needs python3");
        Path trees = Files.createDirectories(dir.resolve("grading/trees"));
        Path tree = Files.createDirectories(trees.resolve("grade-1"));
        Files.createDirectories(tree.resolve("calc"));
        Files.createDirectories(tree.resolve("tests"));
        Files.writeString(tree.resolve("calc/ops.py"), "def add(a, b):\n    return a + b\n");
        Files.writeString(tree.resolve("tests/test_ops.py"), "from calc.ops import add\n\ndef test_add():\n    assert add(2, 3) == 5\n");
        Files.writeString(tree.resolve("tests/data.txt"), "test data stays readable, as locally\n");
        Path volume = dir.resolve("oracle");
        Path script = dir.resolve("oracle-spawner.py");
        Path runner = dir.resolve("grading-runner.py");
        Files.writeString(script, OracleContainer.script());
        Files.writeString(runner, GradingContainer.script());
        Path socket = volume.resolve("ctl/spawner.sock");
        Path copies = dir.resolve("grading/oracle-trees");
        try (OracleContainerHost host = OracleContainerHost.listen(socket, volume, trees, copies, Duration.ofSeconds(30))) {
            Process spawner = new ProcessBuilder("/usr/bin/python3", "-I", "-S", script.toString(), "--socket", socket.toString(),
                    "--runner", runner.toString(), "--wait-seconds", "30").redirectErrorStream(true)
                    .redirectOutput(dir.resolve("spawner.log").toFile()).start();
            try {
                assertThat(host.problem()).as("spawner log: %s", log()).isNull();
                assertThat(Files.exists(socket)).as("the socket is gone once the spawner connected").isFalse();
                Path base = host.base();
                Files.createDirectories(base);
                Path fifo = base.resolve("fifo");
                Path spawn = dir.resolve("grading/results-1/oracle-spawn"); // the results folder: the worker container has none
                WorkerHost.Workers workers = host.start(fifo, spawn, tree, List.of("tests/test_ops.py"), base.resolve("tmp"), "/usr/bin/python3",
                        Map.of("PATH", "/usr/bin:/bin"));
                assertThat(workers.problem()).isNull();
                Path copy = copies.resolve("grade-1");
                assertThat(Files.readString(copy.resolve("calc/ops.py"))).contains("def add");
                assertThat(Files.size(copy.resolve("tests/test_ops.py"))).as("the trusted test file, empty in the copy").isZero();
                assertThat(Files.readString(tree.resolve("tests/test_ops.py"))).as("the tree's own, untouched").contains("def test_add");
                assertThat(Files.getAttribute(copy.resolve("calc/ops.py"), "unix:nlink")).as("a hard link, not a copy of the bytes").isEqualTo(2);
                assertThat(Files.readString(copy.resolve("tests/data.txt"))).contains("test data");
                assertThat(Files.getPosixFilePermissions(copy.resolve("calc/ops.py"))).contains(PosixFilePermission.OTHERS_READ);
                // the workers can add nothing to the FIFO folder: no FIFO of a later worker can be a link or a file
                assertThat(Files.getPosixFilePermissions(fifo)).doesNotContain(PosixFilePermission.OTHERS_WRITE, PosixFilePermission.GROUP_WRITE);
                assertThat(Files.exists(fifo.resolve("w64.in"), LinkOption.NOFOLLOW_LINKS)).isTrue();
                // the workers share the spawner's container, uid and mounts: no request FIFO may be where they see the oracle
                // volume (red-team round 5, y17, wrote guessed requests into one found beside its scratch folder)
                try (var seen = Files.walk(volume)) {
                    assertThat(seen.filter(p -> p.getFileName().toString().contains("spawn") && !p.getFileName().toString().endsWith(".sock")).toList())
                            .as("a request FIFO on the oracle volume, which the worker container mounts").isEmpty();
                }

                Awaitility.await("worker 1").atMost(Duration.ofSeconds(20)).until(() -> workersOf(fifo) == 1);
                try (OutputStream requests = Files.newOutputStream(spawn)) {
                    requests.write("junk\n2\n-1\n".getBytes(StandardCharsets.US_ASCII));
                }
                Awaitility.await("worker 2 started, worker 1 ended").atMost(Duration.ofSeconds(20))
                        .until(() -> workersOf(fifo) == 1 && running(fifo.resolve("w2.in")));
                // a process a graded test starts (oracle_children): its relay asks on the same FIFO ("cPID"), the sidecar makes
                // its FIFO pair, the spawner starts the box end, the program's output and status come back through the relay
                Path support = dev.crucible.verifier.grade.oracle.OracleFiles.install(dir.resolve("support"));
                String cfg = "{\"dir\": \"" + fifo + "\", \"spawn\": \"" + spawn + "\", \"root\": \"" + tree + "\", \"start_timeout\": 20}";
                Process relay = new ProcessBuilder("/usr/bin/python3", "-I", "-S", "-B", support.resolve("oracle_child_relay.py").toString(), cfg,
                        "--", "/usr/bin/python3", "python3", "-c", "import os, sys; print('child', sys.stdin.read(), os.environ.get('CRUCIBLE_X')); sys.exit(3)")
                        .directory(tree.toFile()).start();
                relay.getOutputStream().write("42".getBytes(StandardCharsets.US_ASCII));
                relay.getOutputStream().close();
                String said = new String(relay.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(relay.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(said).as(new String(relay.getErrorStream().readAllBytes(), StandardCharsets.UTF_8) + log()).isEqualTo("child 42 None\n");
                assertThat(relay.exitValue()).isEqualTo(3);
                assertThat(Files.exists(fifo.resolve("c" + relay.pid() + ".in"), LinkOption.NOFOLLOW_LINKS)).as("its FIFOs, made by the sidecar").isTrue();
                workers.close();
                Awaitility.await("every worker ended with the grading").atMost(Duration.ofSeconds(20)).until(() -> workersOf(fifo) == 0);
                Awaitility.await("the request FIFO goes with the grading").atMost(Duration.ofSeconds(5)).until(() -> !Files.exists(spawn, LinkOption.NOFOLLOW_LINKS));
                assertThat(spawner.isAlive()).as("the spawner serves the next grading").isTrue();
            } finally {
                host.close();
                assertThat(spawner.waitFor(20, TimeUnit.SECONDS)).as("the spawner ends with the sidecar's connection").isTrue();
                spawner.destroyForcibly();
            }
        }
    }

    private String log() throws Exception {
        Path l = dir.resolve("spawner.log");
        return Files.exists(l) ? Files.readString(l) : "";
    }

    /** Worker processes of this grading: their command line names one of its FIFOs. */
    private static long workersOf(Path fifo) throws Exception {
        try (var s = Files.list(Path.of("/proc"))) {
            return s.filter(p -> p.getFileName().toString().matches("\\d+")).filter(p -> cmdline(p).contains(fifo + "/w")).count();
        }
    }

    private static boolean running(Path in) throws Exception {
        try (var s = Files.list(Path.of("/proc"))) {
            return s.filter(p -> p.getFileName().toString().matches("\\d+")).anyMatch(p -> cmdline(p).contains(in.toString()));
        }
    }

    private static String cmdline(Path proc) {
        try {
            return new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (Exception e) {
            return "";
        }
    }
}
