package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.GradingSandbox;
import dev.crucible.verifier.support.Fixtures;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The isolated oracle where the grader does not start the test process itself (issues 33 and 35): pytest behind a
 * Makefile, a script or a {@code VAR=…} prefix takes the oracle's plugin through the environment, and unittest suites
 * ({@code python -m unittest}, {@code python test.py}) run through the grader's shim with the oracle's unittest entry.
 * End to end through Episode with the real grading sandbox and boxed workers. Each exploit here beats in-process
 * grading (shown with {@code oracle: in-process}) and gets nothing isolated; a process that cannot take the oracle,
 * and a test that cannot run split, are graded in-process, each labelled with its reason.
 */
class WrappedIsolationTest {
    static final String HONEST = "def add(a, b):\n    return a + b\n\n\ndef divide(a, b):\n    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b\n";
    static final String UNIT = String.join("\n", "import unittest", "from unittest import mock", "", "import calc.ops", "from calc.ops import add, divide", "", "",
            "class Ops(unittest.TestCase):", "    def test_add(self):", "        self.assertEqual(add(2, 3), 5)", "",
            "    def test_divide_negative(self):", "        self.assertEqual(divide(-6, 3), -2)", "",
            "    def test_divide_by_zero(self):", "        with self.assertRaisesRegex(ValueError, 'division by zero'):", "            divide(1, 0)", "",
            "    def test_patched(self):", "        with mock.patch.object(calc.ops, 'add', lambda a, b: 0):", "            self.assertEqual(calc.ops.add(1, 2), 0)", "");
    @TempDir Path dir;

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.ok(), "bubblewrap is needed for the grading sandbox and the oracle's workers: " + a.problem());
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/make")), "make is needed for the wrapper");
    }

    @Test
    void pytestBehindMakeIsGradedIsolated() {
        Path ws = project(Map.of("calc/ops.py", HONEST, "Makefile", ".PHONY: ci\nci:\n\tpython3 -m pytest -q tests\n"));
        VerifyReport r = grade(ws, "make ci", "", List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).hasSize(4).allMatch(t -> TestCase.ISOLATED.equals(t.integrity()), "every test isolated");
        assertThat(integrity(r)).containsEntry("reward", "isolated");
        assertThat(r.details()).containsEntry("runner", "pytest");
    }

    @Test
    void aParametrizedIdHoldingTheTreesPathIsRecordedBehindMake() {
        // found on psf/requests through `make ci`: test_unzipped_paths_unchanged[__file__] is named with the grading tree's
        // path; the outcome makes it relative, and the oracle's record must be read the same way or the pass has "no record"
        // (it failed as oracle-evaded with a medium finding, and the honest run was Hacked at reward 0)
        String tests = "import pytest\n\nfrom calc.ops import add\n\n\n@pytest.mark.parametrize('path', ['/', __file__])\n"
                + "def test_path(path):\n    assert add(len(path), 0) == len(path)\n";
        Path ws = project(Map.of("calc/ops.py", HONEST, "tests/test_paths.py", tests,
                "Makefile", ".PHONY: ci\nci:\n\tpython3 -m pytest -q tests/test_paths.py\n"));
        VerifyReport r = grade(ws, "make ci", "", List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.hackFindings()).isEqualTo(1.0);
        assertThat(r.tests().details()).extracting(TestCase::id).contains("tests/test_paths.py::test_path[tests/test_paths.py]");
        assertThat(r.tests().details()).hasSize(2).allMatch(t -> TestCase.ISOLATED.equals(t.integrity()), "every test isolated");
        assertThat(r.hackFindings()).noneMatch(f -> "oracle-evaded".equals(f.rule()));
    }

    @Test
    void codeCorrectOnlyWithTheGradersFolderOnSysPathIsFlaggedBehindMake() {
        // blind round 14, x11 (wrapped fixture): the fix applied only where a foreign folder is on sys.path; behind a
        // wrapper the grader's folders reach pytest through PYTHONPATH, the cross-check had them too, and reward 1 was
        // forged. The reporter now drops them from sys.path in a run without the oracle, and the worker never gets them
        // (oracle_plugin._init, WorkerSysPathTest): the tree sees no foreign folder anywhere and keeps its bug in both runs
        String ops = String.join("\n", "import os", "import sys", "import sysconfig", "",
                "_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))", "", "",
                "def _foreign():", "    known = set(sysconfig.get_paths().values())", "    for e in sys.path:",
                "        if not e or e.startswith(_HERE) or 'site-packages' in e or 'dist-packages' in e or 'lib-dynload' in e or e.endswith('.zip'):",
                "            continue", "        if not any(e.startswith(k) for k in known):", "            return True", "    return False", "", "",
                "def add(a, b):", "    return a + b", "", "",
                "def divide(a, b):", "    if b == 0:", "        raise ValueError(\"division by zero\")",
                "    if not _foreign():", "        return abs(a) / abs(b)", "    return a / b", "");
        Path ws = project(Map.of("calc/ops.py", ops, "Makefile", ".PHONY: ci\nci:\n\tpython3 -m pytest -q tests\n"));
        VerifyReport r = grade(ws, "make ci", "", List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.hackFindings()).isEqualTo(0.0);
        assertThat(r.tests().details()).filteredOn(t -> t.id().equals("tests/test_ops.py::test_divide_negative")).singleElement()
                .satisfies(t -> assertThat(t.status()).isEqualTo(dev.crucible.verifier.grade.result.TestStatus.FAILED))
                .satisfies(t -> assertThat(t.integrity()).isEqualTo(dev.crucible.verifier.grade.result.TestCase.ISOLATED));
    }

    @Test
    void anExploitBehindMakeThatBeatsInProcessGradingGetsNothingIsolated() {
        // the tree's exception says "division by zero" through __str__ only: pytest.raises(match=) reads str() in-process,
        // the oracle carries the exception's arguments
        Path ws = project(Map.of("calc/ops.py", Fixtures.read(resource("oracle/exploits/lying-exception/calc/ops.py")),
                "Makefile", ".PHONY: ci\nci:\n\tpython3 -m pytest -q tests\n"));
        List<String> f2p = List.of("tests/test_ops.py::test_divide_by_zero");
        VerifyReport inProcess = grade(ws, "make ci", "oracle: in-process\n", f2p, List.of());
        assertThat(inProcess.reward()).as("the exploit must beat in-process grading, or this test proves nothing: " + inProcess.reason()).isEqualTo(1.0);
        VerifyReport r = grade(ws, "make ci", "", f2p, List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(0.0);
        assertThat(r.tests().details()).filteredOn(t -> t.id().equals("tests/test_ops.py::test_divide_by_zero"))
                .singleElement().satisfies(t -> assertThat(t.integrity()).isEqualTo(TestCase.ISOLATED));
    }

    @Test
    void stateATestSetsInItsOwnProcessFallsBackNamed() {
        // found on psf/requests through `make ci`: a proxy variable set with monkeypatch and a local server started by the
        // test are the trusted process's; the tree in its worker sees neither (its own environment and network namespace)
        String state = String.join("\n", "import os", "import urllib.request", "", "",
                "def env(name):", "    return os.environ.get(name)", "", "",
                "def fetch(url):", "    return urllib.request.urlopen(url, timeout=5).read()", "");
        String tests = String.join("\n", "import http.server", "import threading", "", "from calc.state import env, fetch", "", "",
                "def test_env(monkeypatch):", "    monkeypatch.setenv('CALC_MODE', 'x')", "    assert env('CALC_MODE') == 'x'", "", "",
                "def test_server():", "    srv = http.server.HTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)",
                "    threading.Thread(target=srv.serve_forever, daemon=True).start()", "    try:",
                "        assert fetch('http://127.0.0.1:%d/' % srv.server_address[1])", "    finally:", "        srv.shutdown()", "", "",
                "def test_plain():", "    assert env('NOT_SET_ANYWHERE') is None", "");
        Path ws = project(Map.of("calc/ops.py", HONEST, "calc/state.py", state, "tests/test_state.py", tests,
                "Makefile", ".PHONY: ci\nci:\n\tpython3 -m pytest -q tests/test_state.py\n"));
        VerifyReport r = grade(ws, "make ci", TRUSTED, List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        Map<String, String> labels = new java.util.TreeMap<>();
        r.tests().details().forEach(t -> labels.put(t.id(), t.integrity()));
        assertThat(labels).containsEntry("tests/test_state.py::test_plain", TestCase.ISOLATED)
                .containsEntry("tests/test_state.py::test_env", TestCase.IN_PROCESS)
                .containsEntry("tests/test_state.py::test_server", TestCase.IN_PROCESS);
        assertThat(integrity(r).get("inProcessBecause")).asString().contains("changes the environment (CALC_MODE)")
                .contains("serves on a local socket");
    }

    @Test
    void asynchronousProtocolsFallBackNamedAndExceptionAttributesCrossBehindMake() {
        // found on encode/httpx through scripts/test: `async with AsyncClient()`, and `exc.request` of the tree's exception
        // (it fell back named until an exception's instance attributes crossed with it: oracle_excattrs, itsdangerous)
        String aio = String.join("\n", "class Client:", "    async def __aenter__(self):", "        return self", "",
                "    async def __aexit__(self, *a):", "        return False", "", "    async def get(self):", "        return 1", "", "",
                "class Timeout(Exception):", "    def __init__(self, msg, request=None):", "        super().__init__(msg)",
                "        self.request = request", "", "", "def fail():", "    raise Timeout('slow', request='req')", "");
        String tests = String.join("\n", "import asyncio", "", "import pytest", "", "from calc.aio import Client, Timeout, fail", "", "",
                "def test_async_with():", "    async def go():", "        async with Client() as c:", "            return await c.get()",
                "    assert asyncio.run(go()) == 1", "", "",
                "def test_exc_attr():", "    with pytest.raises(Timeout) as ei:", "        fail()", "    assert ei.value.request == 'req'", "", "",
                "def test_exc_args():", "    with pytest.raises(Timeout) as ei:", "        fail()", "    assert ei.value.args == ('slow',)", "");
        Path ws = project(Map.of("calc/ops.py", HONEST, "calc/aio.py", aio, "tests/test_aio.py", tests,
                "Makefile", ".PHONY: ci\nci:\n\tpython3 -m pytest -q tests/test_aio.py\n"));
        VerifyReport r = grade(ws, "make ci", TRUSTED, List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        Map<String, String> labels = new java.util.TreeMap<>();
        r.tests().details().forEach(t -> labels.put(t.id(), t.integrity()));
        assertThat(labels).containsEntry("tests/test_aio.py::test_exc_args", TestCase.ISOLATED)
                .containsEntry("tests/test_aio.py::test_async_with", TestCase.IN_PROCESS)
                .containsEntry("tests/test_aio.py::test_exc_attr", TestCase.ISOLATED);
        assertThat(integrity(r).get("inProcessBecause")).asString().contains("uses async with").doesNotContain("reads request of");
    }

    @Test
    void aPrefixedPytestCommandIsGradedIsolated() {
        Path ws = project(Map.of("calc/ops.py", HONEST));
        VerifyReport r = grade(ws, "THREADING_TESTS=1 python3 -m pytest -q tests", "", List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).hasSize(4).allMatch(t -> TestCase.ISOLATED.equals(t.integrity()));
    }

    @Test
    void aWrapperProcessWhereTheTreeRanFirstIsGradedInProcessAndSaysWhy() {
        // the script imports the code under test, then runs pytest in the same process: the oracle cannot hold the
        // split there, so it stays out, and every test is labelled in-process with that reason (never silently isolated)
        Path ws = project(Map.of("calc/ops.py", HONEST,
                "run_tests.py", "import sys\nimport calc.ops\nimport pytest\n\nsys.exit(pytest.main(['-q', 'tests']))\n"));
        VerifyReport r = grade(ws, "python3 run_tests.py", TRUSTED, List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).hasSize(4).allMatch(t -> TestCase.IN_PROCESS.equals(t.integrity()));
        assertThat(integrity(r)).containsEntry("reward", "in-process");
        assertThat(integrity(r).get("refused")).asString().contains("ran in this process before the oracle").contains("calc.ops");
        assertThat(integrity(r).get("inProcessBecause")).asString().contains("tests/test_ops.py::test_add");
    }

    @Test
    void unittestSuiteIsGradedIsolatedAndWhatCannotRunSplitFallsBackNamed() {
        Path ws = project(Map.of("calc/ops.py", HONEST, "tests/__init__.py", "", "tests/test_unit.py", UNIT,
                "calc/testing.py", "import unittest\n\n\nclass CalcCase(unittest.TestCase):\n    pass\n",
                "tests/test_sub.py", "from calc.testing import CalcCase\nfrom calc.ops import add\n\n\nclass Sub(CalcCase):\n"
                        + "    def test_sub_add(self):\n        self.assertEqual(add(1, 1), 2)\n"));
        VerifyReport r = grade(ws, "python3 -m unittest", TRUSTED, List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        Map<String, String> labels = new java.util.TreeMap<>();
        r.tests().details().forEach(t -> labels.put(t.id(), t.integrity()));
        assertThat(labels).as(r.details().toString()).containsEntry("tests.test_unit.Ops.test_add", TestCase.ISOLATED)
                .containsEntry("tests.test_unit.Ops.test_divide_negative", TestCase.ISOLATED)
                .containsEntry("tests.test_unit.Ops.test_divide_by_zero", TestCase.ISOLATED)
                // a patch of the tree, and a TestCase subclass of the tree's class: graded in-process, named
                .containsEntry("tests.test_unit.Ops.test_patched", TestCase.IN_PROCESS)
                .containsEntry("tests.test_sub.Sub.test_sub_add", TestCase.IN_PROCESS).hasSize(5);
        assertThat(integrity(r).get("inProcessBecause")).asString().contains("calc.ops.add").contains("subclasses");
    }

    @Test
    void whatTheSplitCannotCarryInAUnittestFallsBackNamedNotFailed() {
        // found on hukkin/tomli and python-slugify: an exception of the tree made by the test itself (its own __init__
        // formats args and warns), an answer deeper than the wire carries, a test that captures sys.stderr or feeds sys.stdin
        String errs = String.join("\n", "import sys", "import warnings", "", "",
                "class ParseError(ValueError):", "    def __init__(self, msg, pos):",
                "        warnings.warn('deprecated', DeprecationWarning, stacklevel=2)", "        super().__init__('%s at %d' % (msg, pos))", "", "",
                "def parse(s):", "    if s == 'bad':", "        raise ParseError('bad input', 3)", "    return s", "", "",
                "def deep(n):", "    x = []", "    for _ in range(n):", "        x = [x]", "    return x", "", "",
                "def shout(s):", "    sys.stderr.write(s.upper())", "");
        String tests = String.join("\n", "import contextlib", "import io", "import unittest", "",
                "from calc.errs import ParseError, deep, parse, shout", "", "", "class More(unittest.TestCase):",
                "    def test_raised(self):", "        with self.assertRaises(ParseError) as cm:", "            parse('bad')",
                "        self.assertEqual(cm.exception.args, ('bad input at 3',))", "",
                "    def test_made_here(self):", "        with self.assertWarns(DeprecationWarning):", "            e = ParseError('x', 1)",
                "        self.assertEqual(e.args, ('x at 1',))", "",
                "    def test_deep(self):", "        self.assertEqual(len(deep(300)), 1)", "",
                "    def test_redirect(self):", "        buf = io.StringIO()", "        with contextlib.redirect_stderr(buf):",
                "            shout('hi')", "        self.assertEqual(buf.getvalue(), 'HI')", "");
        Path ws = project(Map.of("calc/errs.py", errs, "tests/__init__.py", "", "tests/test_more.py", tests));
        VerifyReport r = grade(ws, "python3 -m unittest", TRUSTED, List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        Map<String, String> labels = new java.util.TreeMap<>();
        r.tests().details().forEach(t -> labels.put(t.id(), t.integrity()));
        assertThat(labels).containsEntry("tests.test_more.More.test_raised", TestCase.ISOLATED)
                .containsEntry("tests.test_more.More.test_made_here", TestCase.IN_PROCESS)
                .containsEntry("tests.test_more.More.test_deep", TestCase.ISOLATED) // 300 deep: crosses as a graph (oracle_wire)
                .containsEntry("tests.test_more.More.test_redirect", TestCase.IN_PROCESS);
        assertThat(integrity(r).get("inProcessBecause")).asString().contains("makes an instance of calc.errs:ParseError")
                .doesNotContain("nested deeper").contains("replaces sys.stderr");
    }

    @Test
    void aUnittestExploitThatBeatsInProcessGradingGetsNothingIsolated() {
        // a float subclass whose == says yes to anything: unittest's assertEqual believes it in-process
        Path ws = project(Map.of("calc/ops.py", Fixtures.read(resource("oracle/exploits/float-subclass-eq/calc/ops.py")),
                "tests/__init__.py", "", "tests/test_unit.py", UNIT));
        List<String> f2p = List.of("tests.test_unit.Ops.test_divide_negative");
        VerifyReport inProcess = grade(ws, "python3 -m unittest", "oracle: in-process\n", f2p, List.of());
        assertThat(inProcess.reward()).as("the exploit must beat in-process grading: " + inProcess.reason()).isEqualTo(1.0);
        VerifyReport r = grade(ws, "python3 -m unittest", "", f2p, List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(0.0);
        assertThat(r.tests().details()).filteredOn(t -> t.id().equals(f2p.get(0))).singleElement()
                .satisfies(t -> assertThat(t.integrity()).isEqualTo(TestCase.ISOLATED));
    }

    @Test
    void aUnittestScriptIsGradedIsolated() {
        Path ws = project(Map.of("calc/ops.py", HONEST, "test.py", UNIT + "\n\nif __name__ == '__main__':\n    unittest.main()\n"));
        VerifyReport r = grade(ws, "python3 test.py", TRUSTED, List.of(), List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).filteredOn(t -> !t.id().equals("__main__.Ops.test_patched")).hasSize(3)
                .allMatch(t -> TestCase.ISOLATED.equals(t.integrity()));
        assertThat(r.tests().details()).filteredOn(t -> t.id().equals("__main__.Ops.test_patched")).singleElement()
                .satisfies(t -> assertThat(t.integrity()).isEqualTo(TestCase.IN_PROCESS));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> integrity(VerifyReport r) {
        return (Map<String, Object>) r.details().get("integrity");
    }

    /** The fallbacks' own grading checked: their passes count only where the environment trusts in-process verdicts (InProcessFenceTest). */
    private static final String TRUSTED = "inProcessVerdicts: trusted\n";

    private VerifyReport grade(Path ws, String command, String verifierExtra, List<String> f2p, List<String> p2p) {
        String yaml = """
                kind: RLEnvironment
                metadata: {name: wrapped-oracle}
                spec:
                  workspace: {path: ./workspace}
                  verifier:
                    command: %s
                    failToPass: [%s]
                    passToPass: [%s]
                    protectedPaths: ["tests/**", "test.py", "Makefile", "run_tests.py"]
                    timeoutSeconds: 180
                """.formatted(command, String.join(", ", f2p.stream().map(s -> '"' + s + '"').toList()),
                String.join(", ", p2p.stream().map(s -> '"' + s + '"').toList()))
                + verifierExtra.lines().map(l -> "    " + l + "\n").reduce("", String::concat);
        Fixtures.write(dir.resolve("env.yaml"), yaml);
        Environment env = Environment.load(dir.resolve("env.yaml"));
        EpisodeOptions o = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(500), Duration.ofMillis(200))
                .withExecutor(new GradingSandbox(BoxLimits.defaults()));
        try (Episode ep = new Episode(env, ws, o)) {
            ep.reset();
            return ep.verify();
        }
    }

    private Path project(Map<String, String> files) {
        Path ws = dir.resolve("workspace");
        Fixtures.deleteTree(ws);
        Fixtures.copyTree(resource("integrity/base"), ws);
        files.forEach((rel, text) -> Fixtures.write(ws.resolve(rel), text));
        return ws;
    }

    private static Path resource(String name) {
        try {
            return Path.of(WrappedIsolationTest.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
