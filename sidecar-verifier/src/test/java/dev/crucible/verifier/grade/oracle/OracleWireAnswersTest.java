package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.support.Fixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An answer of the code under test that cannot cross the wire fails its call as the oracle's own error, never as an
 * exception a test can catch (blind round 10, x45: a 6000-digit int made the answer's conversion raise a ValueError,
 * and the test's {@code pytest.raises(ValueError)} passed on it; x10 the same, unflagged). Big ints within the
 * interpreter's own limit cross exactly. An interpreter-control exception raised out of a call (x09) fails the test.
 * Each is a {@code medium} attempt. Real pytest, a real worker in a bubblewrap box; skips without them.
 */
class OracleWireAnswersTest {
    @TempDir Path dir;

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.bwrap() != null, "bubblewrap is needed to box the oracle's worker: " + a.problem());
        assumeTrue(run(List.of("python3", "-c", "import pytest"), Path.of("."), List.of()).exit == 0, "python3 with pytest is needed");
    }

    @Test
    void anAnswerThatCannotCrossFailsTheCallAndIsAnAttempt() {
        Path tree = dir.resolve("tree");
        Fixtures.write(tree.resolve("calc/__init__.py"), "");
        Fixtures.write(tree.resolve("calc/m.py"), String.join("\n",
                "def lenient(code):", "    return 10 ** 6000  # never raises: an answer the grader cannot convert",
                "def bomb():", "    x = []", "    for _ in range(30000):", "        x = [x]", "    return x",
                "def big():", "    return -(10 ** 4000) + 7", "def ratio():", "    import fractions", "    return fractions.Fraction(10 ** 300 + 1, 3)",
                "def interrupt():", "    raise KeyboardInterrupt", "def genexit():", "    raise GeneratorExit", ""));
        Fixtures.write(tree.resolve("tests/test_wire.py"), String.join("\n", "import fractions", "import pytest", "import calc.m", "",
                "def test_malformed_raises():", "    with pytest.raises(ValueError):", "        calc.m.lenient('a')", "",
                "def test_bomb_raises():", "    with pytest.raises(Exception):", "        calc.m.bomb()", "",
                "def test_big_crosses_exactly():", "    assert calc.m.big() == -(10 ** 4000) + 7", "",
                "def test_fraction_crosses_exactly():", "    assert calc.m.ratio() == fractions.Fraction(10 ** 300 + 1, 3)", "",
                "def test_interrupt_caught():", "    try:", "        calc.m.interrupt()", "    except BaseException:", "        pass", "",
                "def test_genexit_caught():", "    try:", "        calc.m.genexit()", "    except BaseException:", "        pass", ""));
        Ran ran = grade(tree);
        OracleReport r = OracleReport.read(dir.resolve("oracle-out.json"));
        assertThat(ran.output).as(ran.output).contains("FAILED tests/test_wire.py::test_malformed_raises", "FAILED tests/test_wire.py::test_bomb_raises",
                "PASSED tests/test_wire.py::test_big_crosses_exactly", "PASSED tests/test_wire.py::test_fraction_crosses_exactly",
                "FAILED tests/test_wire.py::test_interrupt_caught", "FAILED tests/test_wire.py::test_genexit_caught");
        assertThat(r.attempts()).as(r.attempts().toString())
                .anyMatch(a -> a.kind().equals("wire") && a.detail().contains("over the limit of"))
                .anyMatch(a -> a.kind().equals("wire") && a.detail().contains("nested"))
                .anyMatch(a -> a.kind().equals("abort") && a.detail().contains("KeyboardInterrupt"))
                .anyMatch(a -> a.kind().equals("abort") && a.detail().contains("GeneratorExit"));
        List<IntegrityFinding> f = OracleAttempts.findings(r.attempts());
        assertThat(f).extracting(IntegrityFinding::rule).contains("attempt-wire", "attempt-abort");
        assertThat(f).allMatch(x -> x.severity().equals("medium"));
    }

    private Ran grade(Path tree) {
        Path plugin = OracleFiles.install(dir.resolve("oracle"));
        Path shared = dir.resolve("shared");
        try {
            Files.createDirectories(shared);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path cfg = new OracleConfig(tree, null, shared, Duration.ofSeconds(20), dir.resolve("oracle-out.json"), "bwrap", null,
                Box.availability().bwrap(), dir.resolve("worker.err")).write(dir.resolve("oracle.json"));
        return run(List.of("python3", "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-p", OracleFiles.PLUGIN,
                "--basetemp=" + shared.resolve("pytest")), tree, List.of("PYTHONPATH=" + plugin, OracleFiles.CONFIG_VAR + "=" + cfg));
    }

    record Ran(int exit, String output) {}

    private static Ran run(List<String> argv, Path cwd, List<String> env) {
        try {
            ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true);
            pb.environment().keySet().removeIf(k -> k.startsWith("PYTHON") || k.startsWith("PYTEST") || k.startsWith("CRUCIBLE"));
            for (String kv : env) pb.environment().put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(180, TimeUnit.SECONDS)) p.destroyForcibly();
            return new Ran(p.exitValue(), new String(out));
        } catch (IOException e) {
            return new Ran(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Ran(-1, "interrupted");
        }
    }
}
