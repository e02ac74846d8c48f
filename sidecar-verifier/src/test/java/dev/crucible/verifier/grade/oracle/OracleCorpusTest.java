package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.grade.result.JUnitXmlParser;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.support.Fixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The isolated oracle's core, run for real: pytest in this process's place with the oracle plugin, the code
 * under test in a bubblewrap worker. The integrity corpus (base calc package overlaid with one variant) and the
 * oracle's own cases: every honest variant's tests pass isolated (or are listed for in-process grading), no
 * exploit gets all its FAIL_TO_PASS tests to pass, and the oracle's own exploits do beat plain pytest (so these
 * tests can fail). Skips, saying what is missing, without bubblewrap or python3 with pytest.
 */
class OracleCorpusTest {
    static final List<String> F2P = List.of("tests/test_ops.py::test_divide_negative", "tests/test_ops.py::test_divide_by_zero");
    static final List<String> P2P = List.of("tests/test_ops.py::test_divide_positive", "tests/test_ops.py::test_add");
    @TempDir Path dir;

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.bwrap() != null, "bubblewrap is needed to box the oracle's worker: " + a.problem());
        assumeTrue(run(List.of("python3", "-c", "import pytest"), Path.of("."), List.of()).exit == 0, "python3 with pytest is needed");
    }

    static Stream<String> honest() { return variants("integrity/honest"); }

    static Stream<String> exploits() {
        return Stream.concat(variants("integrity/exploits").map(v -> "integrity/exploits/" + v), variants("oracle/exploits").map(v -> "oracle/exploits/" + v));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("honest")
    void honestVariantPassesIsolatedOrIsListedForInProcess(String name) {
        Path tree = project("integrity/honest/" + name);
        List<String> want = new ArrayList<>(F2P);
        want.addAll(P2P);
        Path extra = resource("integrity/honest/" + name).resolve("extra-tests.txt");
        if (Files.exists(extra)) want.addAll(Fixtures.read(extra).lines().filter(l -> !l.isBlank()).toList());
        Graded g = grade(tree, true);
        for (String t : want) {
            boolean fellBack = g.report.needsInProcess().stream().anyMatch(f -> t.equals(f) || t.startsWith(f + "::"));
            assertThat(g.passed(t) || fellBack).as(name + ": " + t + " neither passed nor fell back\n" + g.output).isTrue();
        }
        assertThat(g.report.workerEnded()).as(name).isEmpty();
        // precision of the attempt findings (issue 33 point 3): an honest variant tries nothing
        assertThat(OracleAttempts.findings(g.report.attempts())).as(name + ": " + g.report.attempts()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exploits")
    void exploitDoesNotPassItsFailToPassTests(String variant) {
        Graded g = grade(project(variant), true);
        List<String> f2p = failToPass(variant);
        assertThat(f2p.stream().allMatch(g::passed)).as(variant + " reached a pass\n" + g.output).isFalse();
    }

    /** The oracle's own exploits are real: plain pytest gives them every FAIL_TO_PASS test (the worker-killing ones excepted). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("naiveBeaten")
    void oracleExploitBeatsPlainPytest(String variant) {
        Graded g = grade(project("oracle/exploits/" + variant), false);
        assertThat(failToPass("oracle/exploits/" + variant)).as(variant + "\n" + g.output).allMatch(g::passed);
    }

    static Stream<String> naiveBeaten() {
        return Stream.of("approx-result", "magicmock-result", "truthy-mask", "float-subclass-eq", "proc-parent-read", "lenient-arith", "lying-exception");
    }

    @Test
    void richPackageRunsIsolatedAndAMonkeypatchFallsBack() throws IOException {
        Path tree = dir.resolve("rich");
        Fixtures.copyTree(resource("oracle/rich"), tree);
        Graded g = grade(tree, true);
        List<TestCase> all = JUnitXmlParser.parse(dir.resolve("junit.xml"), true);
        List<String> passed = all.stream().filter(t -> t.status().counts(false)).map(TestCase::id).toList();
        assertThat(passed).as(g.output).hasSize(all.size() - 1);
        assertThat(g.report.needsInProcess()).containsExactly("tests/test_rich.py::test_monkeypatch_falls_back");
        assertThat(passed).noneMatch(g.report::fallsBack);
        assertThat(g.report.workerStarts()).isEqualTo(1);
    }

    @Test
    void aTestModuleThatSwallowsWhatItsPatchRaisedIsStillListedForInProcess() {
        Path tree = dir.resolve("rich");
        Fixtures.copyTree(resource("oracle/rich"), tree);
        Fixtures.write(tree.resolve("tests/test_caught.py"), String.join("\n", "import shapes", "",
                "try:", "    shapes.numbers = lambda n: [7]", "except Exception:", "    pass", "", "",
                "def test_after_caught_patch():", "    assert list(shapes.numbers(2)) == [0, 1]", ""));
        Graded g = grade(tree, true);
        assertThat(g.report.modules()).as(g.output).containsKey("tests/test_caught.py");
        assertThat(g.report.fallsBack("tests/test_caught.py::test_after_caught_patch")).isTrue();
    }

    /**
     * An open file or a BytesIO a test hands to the code is copied into the worker (same type, position and bytes) and the
     * test is graded isolated; before, each went to in-process grading (microsoft/markitdown: 47 of 212 tests not counted).
     */
    @Test
    void anOpenFileOrBytesIOTheTestHandsOverIsGradedIsolated() {
        Path tree = dir.resolve("handed");
        Fixtures.write(tree.resolve("reader.py"), String.join("\n", "import os", "",
                "def rest(stream):",
                "    data = stream.read()",
                "    if isinstance(data, bytes):",
                "        data = data.decode()",
                "    return data.splitlines()[0], type(stream).__name__, os.path.basename(getattr(stream, 'name', '') or '')", "", "",
                "def sibling(stream):",
                "    with open(os.path.join(os.path.dirname(stream.name), 'extra.ini')) as f:",
                "        return f.read().strip()", "", "",
                "class Reader:",
                "    def __init__(self):",
                "        raise RuntimeError('not here')", "",
                "    def tag(self, s):",
                "        return self.prefix + s", ""));
        Fixtures.write(tree.resolve("tests/data.bin"), "from data\n");
        Fixtures.write(tree.resolve("tests/conf/main.ini"), "@include extra.ini\n");
        Fixtures.write(tree.resolve("tests/conf/extra.ini"), "extra content\n");
        Fixtures.write(tree.resolve("tests/test_handed.py"), String.join("\n", "import io", "import os", "", "import reader", "", "",
                "def test_binary_file(tmp_path):",
                "    p = tmp_path / 'in.txt'",
                "    p.write_bytes(b'skip\\nhello\\nworld\\n')",
                "    with open(p, 'rb') as f:",
                "        f.readline()",
                "        assert reader.rest(f) == ('hello', 'BufferedReader', 'in.txt')",
                "        assert f.readline() == b'hello\\n'  # the test's own object kept its position", "", "",
                "def test_text_file(tmp_path):",
                "    p = tmp_path / 'in.txt'",
                "    p.write_text('skip\\nhello\\n')",
                "    with open(p) as f:",
                "        f.readline()",
                "        assert reader.rest(f) == ('hello', 'TextIOWrapper', 'in.txt')", "", "",
                "def test_bytesio():",
                "    b = io.BytesIO(b'a\\nb\\n')",
                "    b.read(2)",
                "    assert reader.rest(b) == ('b', 'BytesIO', '')", "", "",
                "def test_a_data_file_of_the_tests():",
                "    with open(os.path.join(os.path.dirname(__file__), 'data.bin'), 'rb') as f:",
                "        assert reader.rest(f)[0] == 'from data'", "", "",
                "def test_a_file_beside_the_handed_one():",
                "    # blind round 19: an @include beside the handed file; a copy under its base name lost its folder",
                "    with open(os.path.join(os.path.dirname(__file__), 'conf', 'main.ini'), 'rb') as f:",
                "        assert reader.sibling(f) == 'extra content'", "", "",
                "def test_a_link_to_a_test_file(tmp_path):",
                "    # blind round 19, x11: the code made a link to a hidden test file where the test then opens its output;",
                "    # what the descriptor names is a trusted file, masked in the worker: graded in-process, never copied there",
                "    out = tmp_path / 'out.ini'",
                "    os.symlink(os.path.abspath(__file__), str(out))",
                "    with open(out, 'rb') as f:",
                "        assert reader.rest(f)[0] == 'import io'", "", "",
                "def test_an_instance_made_without_init():",
                "    # markitdown: DocumentIntelligenceConverter.__new__(DocumentIntelligenceConverter), then attributes set",
                "    r = reader.Reader.__new__(reader.Reader)",
                "    r.prefix = 'x'",
                "    assert r.tag('y') == 'xy'", "", "",
                "def test_a_wrong_answer_still_fails():",
                "    with open(os.path.join(os.path.dirname(__file__), 'data.bin'), 'rb') as f:",
                "        assert reader.rest(f)[0] == 'something else'", ""));
        Graded g = grade(tree, true);
        for (String t : List.of("test_binary_file", "test_text_file", "test_bytesio", "test_a_data_file_of_the_tests", "test_an_instance_made_without_init",
                "test_a_file_beside_the_handed_one")) {
            assertThat(g.passed("tests/test_handed.py::" + t)).as(t + "\n" + g.output).isTrue();
        }
        assertThat(g.passed("tests/test_handed.py::test_a_wrong_answer_still_fails")).as(g.output).isFalse();
        assertThat(g.report.needsInProcess()).as(g.output).containsExactly("tests/test_handed.py::test_a_link_to_a_test_file");
    }

    @Test
    void aHungWorkerFailsTheCallAndTheNextTestGetsAFreshOne() {
        Graded g = grade(project("oracle/exploits/hang"), true);
        assertThat(g.passed("tests/test_ops.py::test_divide_negative")).isFalse();
        assertThat(g.passed("tests/test_ops.py::test_add")).as(g.output).isTrue();
        assertThat(g.report.workerEnded()).anyMatch(w -> w.contains("did not answer within"));
        assertThat(g.report.workerStarts()).isGreaterThanOrEqualTo(2);
    }

    // -- running pytest with and without the oracle

    record Graded(Set<String> passed, OracleReport report, String output) {
        boolean passed(String id) { return passed.contains(id) || passed.stream().anyMatch(p -> p.startsWith(id + "[")); }
    }

    record Ran(int exit, String output) {}

    private Graded grade(Path tree, boolean oracle) {
        Path plugin = OracleFiles.install(dir.resolve("oracle"));
        Path shared = dir.resolve("shared");
        Path junit = dir.resolve("junit.xml");
        Path out = dir.resolve("oracle-out.json");
        try {
            Files.createDirectories(shared);
            Files.deleteIfExists(junit);
            Files.deleteIfExists(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path cfg = new OracleConfig(tree, null, shared, Duration.ofSeconds(3), out, "bwrap", null, Box.availability().bwrap(), dir.resolve("worker.err"))
                .write(dir.resolve("oracle.json"));
        List<String> argv = new ArrayList<>(List.of("python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=" + junit,
                "--continue-on-collection-errors", "--basetemp=" + shared.resolve("pytest")));
        if (oracle) argv.addAll(List.of("-p", OracleFiles.PLUGIN));
        Ran r = run(argv, tree, List.of("PYTHONPATH=" + plugin, OracleFiles.CONFIG_VAR + "=" + cfg));
        try {
            Set<String> passed = Files.exists(junit) ? JUnitXmlParser.parse(junit, true).stream().filter(t -> t.status().counts(false))
                    .map(TestCase::id).collect(Collectors.toSet()) : Set.of();
            return new Graded(passed, OracleReport.read(out), r.output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

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

    // -- the corpus

    private Path project(String variant) {
        Path ws = dir.resolve("tree");
        Fixtures.deleteTree(ws);
        Fixtures.copyTree(resource("integrity/base"), ws);
        Path shared = resource(variant).resolve("shared.txt");
        if (Files.exists(shared)) Fixtures.copyTree(resource("integrity/shared/" + Fixtures.read(shared).strip()), ws);
        Fixtures.copyTree(resource(variant), ws);
        return ws;
    }

    private static List<String> failToPass(String variant) {
        Path f = resource(variant).resolve("f2p.txt");
        return Files.exists(f) ? Fixtures.read(f).lines().filter(l -> !l.isBlank()).toList() : F2P;
    }

    private static Stream<String> variants(String folder) {
        try (Stream<Path> s = Files.list(resource(folder))) {
            return s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path resource(String name) {
        try {
            return Path.of(OracleCorpusTest.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
