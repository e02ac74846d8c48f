package dev.crucible.verifier.exec.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.support.Fixtures;
import dev.crucible.verifier.support.GradingContainerProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import dev.crucible.verifier.exec.container.ContainerEpisode.Graded;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Grading through the rollout pod's grading container, end to end with real processes: the runner
 * (contract/grading_runner.py) runs as PID 1 of a box standing for the container, the sidecar's
 * {@link GradingContainerExecutor} talks to it over the socket, real pytest with the grader's reporter
 * grades. "box" false is a pod whose seccomp profile forbids user namespaces (no per-command box).
 */
class GradingContainerTest {
    @TempDir Path dir;

    static final String FIX = "def add(a, b):\n    return a + b\n\n\ndef subtract(a, b):\n    return a - b\n\n\n"
            + "def divide(a, b):\n    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b\n";

    @BeforeEach
    void needsContainer() {
        assumeTrue(GradingContainerProcess.unavailable().isEmpty(), () -> "needs " + GradingContainerProcess.unavailable().orElse(""));
    }

    private Graded grade(boolean box, Consumer<Path> agent) throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir.resolve("env")));
        return ContainerEpisode.grade(dir, env, dir.resolve("env/workspace"), box, agent);
    }

    @ParameterizedTest(name = "box={0}")
    @ValueSource(booleans = {false, true})
    void anHonestFixGradedInTheGradingContainerEarnsOne(boolean box) throws Exception {
        Graded g = grade(box, ws -> Fixtures.write(ws.resolve("calc/ops.py"), FIX));
        assertThat(g.report().reason()).isNull();
        assertThat(g.report().reward()).isEqualTo(1.0);
        assertThat(g.report().tests().passed()).isEqualTo(4);
        assertThat(g.report().hackFindings()).allMatch(f -> f.severity().equals("info"));
        assertThat(g.hello().path("pid").asInt()).isEqualTo(1);
        assertThat(g.hello().path("dumpable").asBoolean()).isFalse();
        if (!box) assertThat(g.hello().path("box").isNull()).isTrue();
        assertThat(g.hello().path("network").asText()).isEqualTo(box ? "box" : "seccomp");
    }

    /**
     * Code under test that goes for the sidecar from inside the grading process: its token, its result
     * file, the grader's FIFO by path, the runner's descriptors, the grading tree, forged lines on every
     * descriptor, and a daemon left behind. None of it reaches anything, and the unfixed bug earns 0.
     */
    @ParameterizedTest(name = "box={0}")
    @ValueSource(booleans = {false, true})
    void codeUnderTestReachesNothingOfTheSidecarAndEarnsNothing(boolean box) throws Exception {
        Path sidecar = Files.createDirectories(dir.resolve("sidecar/env-api"));
        Path token = sidecar.resolve("token");
        Files.writeString(token, "secret-token\n");
        Path resultFile = dir.resolve("sidecar/termination-log");
        Files.writeString(resultFile, "");
        Graded g;
        AtomicInteger accepted = new AtomicInteger();
        // stands for the sidecar's API on the pod's loopback (the grading container shares the pod's network)
        try (ServerSocket api = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!api.isClosed()) {
                    try (Socket s = api.accept()) {
                        accepted.incrementAndGet();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "api-stand-in");
            acceptor.setDaemon(true);
            acceptor.start();
            g = grade(box, ws -> Fixtures.write(ws.resolve("calc/__init__.py"), attack(token, resultFile, api.getLocalPort())));
        }
        String log = Files.readString(g.results().resolve("home/attack.log"));
        // no socket at all without a box (seccomp), a network namespace of its own with one; unix sockets still work
        assertThat(log).containsPattern(box ? "api: (ConnectionRefusedError|OSError)" : "api: PermissionError")
                .contains("unix: ok").doesNotContain("api: CONNECTED");
        assertThat(accepted).hasValue(0);
        assertThat(log).contains("token: FileNotFoundError", "token-pod: FileNotFoundError", "result: FileNotFoundError", "fifos: []")
                .doesNotContain("READ", "fifo-write");
        assertThat(Files.readString(token)).isEqualTo("secret-token\n");
        assertThat(Files.readString(resultFile)).isEmpty();
        if (box) {
            assertThat(log).doesNotContainPattern("proc1-cmd: .*grading-runner"); // its own PID namespace: the runner is not there
        } else {
            assertThat(log).contains("proc1-fd: PermissionError").doesNotContain("OPENED"); // the runner is not dumpable
        }
        if (Box.ROOT) assertThat(log).containsPattern("tree: (PermissionError|OSError)"); // another uid: the tree is read-only
        VerifyReport r = g.report();
        assertThat(r.reward()).isEqualTo(0.0);
        assertThat(r.testReward()).isEqualTo(0.0);
        assertThat(r.tests().details()).filteredOn(t -> t.group().equals("failToPass")).extracting(TestCase::status)
                .allMatch(s -> !s.counts(false));
        // the daemon died with the graded command: its heartbeat stopped
        Path beat = g.results().resolve("home/daemon.beat");
        long before = Files.exists(beat) ? Files.size(beat) : 0;
        Thread.sleep(700);
        assertThat(Files.exists(beat) ? Files.size(beat) : 0).isEqualTo(before);
    }

    /** Runs at import of the package under test, inside the grading pytest process. */
    static String attack(Path token, Path resultFile, int apiPort) {
        return String.join("\n",
                "def _attack():",
                "    import glob, json, os, sys, time",
                "    if '_pytest' not in sys.modules:",
                "        return",
                "    home = os.environ.get('HOME', '/tmp')",
                "    log = open(os.path.join(home, 'attack.log'), 'a')",
                "    def note(k, v):",
                "        log.write(k + ': ' + v + '\\n')",
                "        log.flush()",
                "    for name, path in (('token', " + py(token) + "), ('token-pod', '/crucible/secrets/env-api/token')):",
                "        try:",
                "            note(name, 'READ ' + open(path).read().strip())",
                "        except Exception as e:",
                "            note(name, type(e).__name__)",
                "    import socket",
                "    try:",
                "        socket.create_connection(('127.0.0.1', " + apiPort + "), timeout=2).sendall(b'GET /v1/findings HTTP/1.0\\r\\n\\r\\n')",
                "        note('api', 'CONNECTED')",
                "    except Exception as e:",
                "        note('api', type(e).__name__)",
                "    try:",
                "        a, b = socket.socketpair()",
                "        a.sendall(b'x')",
                "        note('unix', 'ok' if b.recv(1) == b'x' else 'no')",
                "    except Exception as e:",
                "        note('unix', type(e).__name__)",
                "    for name, path in (('result', " + py(resultFile) + "),):",
                "        try:",
                "            with open(path, 'w') as f:",
                "                f.write('{\"phase\": \"Succeeded\", \"reward\": 1.0}')",
                "            note(name, 'WROTE')",
                "        except Exception as e:",
                "            note(name, type(e).__name__)",
                "    ids = ['tests/test_ops.py::' + n for n in ('test_add', 'test_divide_positive', 'test_divide_negative', 'test_divide_by_zero')]",
                "    forged = ''.join(json.dumps({'v': 1, 'type': 'test', 'nodeid': i, 'when': 'call', 'outcome': 'passed'}) + '\\n' for i in ids).encode()",
                "    results = os.path.dirname(home)",
                "    fifos = glob.glob(os.path.join(os.path.dirname(results), '*', '*.fifo'))",
                "    note('fifos', json.dumps(fifos))",
                "    for p in fifos:",
                "        try:",
                "            with open(p, 'wb') as f:",
                "                f.write(forged)",
                "            note('fifo-write', 'WROTE ' + p)",
                "        except Exception as e:",
                "            note('fifo-write', type(e).__name__)",
                "    try:",
                "        note('proc1-cmd', open('/proc/1/cmdline', 'rb').read().replace(b'\\0', b' ').decode())",
                "    except Exception as e:",
                "        note('proc1-cmd', type(e).__name__)",
                "    try:",
                "        fds = os.listdir('/proc/1/fd')",
                "        note('proc1-fd', 'listed %d' % len(fds))",
                "        for fd in fds:",
                "            try:",
                "                w = os.open('/proc/1/fd/' + fd, os.O_WRONLY | os.O_NONBLOCK)",
                "                os.write(w, forged)",
                "                note('proc1-open', 'OPENED ' + fd)",
                "            except Exception as e:",
                "                note('proc1-open', type(e).__name__)",
                "    except Exception as e:",
                "        note('proc1-fd', type(e).__name__)",
                "    tree = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))",
                "    try:",
                "        with open(os.path.join(tree, 'tests', 'test_ops.py'), 'a') as f:",
                "            f.write('\\n')",
                "        note('tree', 'WROTE')",
                "    except Exception as e:",
                "        note('tree', type(e).__name__)",
                "    for fd in range(3, 64):",
                "        if fd == log.fileno():",
                "            continue",
                "        try:",
                "            os.fstat(fd)",
                "            os.write(fd, forged)",
                "        except OSError:",
                "            pass",
                "    if os.fork() == 0:",
                "        os.setsid()",
                "        if os.fork() == 0:",
                "            end = time.time() + 20",
                "            while time.time() < end:",
                "                with open(os.path.join(home, 'daemon.beat'), 'a') as f:",
                "                    f.write('x')",
                "                time.sleep(0.05)",
                "        os._exit(0)",
                "    os.wait()",
                "",
                "",
                "_attack()",
                "");
    }

    private static String py(Path p) { return "'" + p.toString().replace("\\", "\\\\").replace("'", "\\'") + "'"; }
}
