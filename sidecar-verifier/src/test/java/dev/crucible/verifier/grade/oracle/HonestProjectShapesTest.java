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
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What real projects' own unmodified suites do that the isolated oracle broke for an honest agent (probemeasure, issue 33):
 * each case a small tree that does what the project does, graded end to end through Episode with the real grading sandbox
 * and boxed workers, a no-op agent's tree: every failure or counted finding here would be a false one.
 */
class HonestProjectShapesTest {
    @TempDir Path dir;

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.ok(), "bubblewrap is needed for the grading sandbox and the oracle's workers: " + a.problem());
    }

    @Test
    void anExceptionsInstanceAttributesCrossWithIt() {
        // pallets/itsdangerous' test_bad_signature_exception / test_bad_payload_exception: the tree's exception carries
        // the payload (bytes: by value) and the error it caught (an object: by reference); only its args crossed before
        String sig = String.join("\n", "import json", "", "",
                "class BadData(Exception):", "    pass", "", "",
                "class BadSignature(BadData):", "    def __init__(self, message, payload=None):", "        super().__init__(message)",
                "        self.payload = payload", "", "",
                "class BadPayload(BadData):", "    def __init__(self, message, original_error=None):", "        super().__init__(message)",
                "        self.original_error = original_error", "", "",
                "def dumps(value):", "    return json.dumps(value) + '.sig'", "", "",
                "def load_payload(payload):", "    try:", "        return json.loads(payload)", "    except ValueError as e:",
                "        raise BadPayload('Could not load the payload', original_error=e)", "", "",
                "def loads(signed):", "    payload, _, s = signed.rpartition('.')", "    if s != 'sig':",
                "        raise BadSignature('Signature does not match', payload=payload.encode())", "    return load_payload(payload)", "");
        String tests = String.join("\n", "import pytest", "", "from calc.sig import BadPayload, BadSignature, dumps, load_payload, loads", "", "",
                "@pytest.mark.parametrize('value', [{'a': 1}, [1, 2], 'x'])",
                "def test_bad_signature_exception(value):", "    with pytest.raises(BadSignature) as exc_info:", "        loads(dumps(value)[:-1])",
                "    assert load_payload(exc_info.value.payload) == value", "", "",
                "def test_bad_payload_exception():", "    with pytest.raises(BadPayload) as exc_info:", "        loads('{not json.sig')",
                "    assert exc_info.value.original_error is not None", "");
        Path ws = project(Map.of("calc/sig.py", sig, "tests/test_sig.py", tests));
        VerifyReport r = grade(ws, "python3 -m pytest -q -p no:cacheprovider tests/test_sig.py", "", List.of("tests/test_sig.py::test_bad_payload_exception"));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).hasSize(4).allMatch(t -> TestCase.ISOLATED.equals(t.integrity()), "every test isolated");
        assertThat(r.hackFindings()).allMatch(f -> f.severity().equals("info"));
    }

    static final String FIELDS = String.join("\n", "class Field:", "    def serialize(self, value):", "        return self._serialize(value)", "", "",
            "class String(Field):", "    def _serialize(self, value):", "        return str(value)", "", "",
            "def dump(field, value):", "    return field.serialize(value)", "", "",
            "def defaults():", "    return {'many': False}", "");
    static final String SCHEMA_TESTS = String.join("\n", "from calc.fields import String, dump", "", "",
            "def test_string():", "    assert dump(String(), 5) == '5'", "", "",
            "def test_fixture(upper):", "    assert upper == 'upper'", "");

    @Test
    void aConftestThatSubclassesTheTreesClassGradesItsFolderInProcessNamed() {
        // marshmallow-code/marshmallow: tests/conftest.py imports tests/base.py, whose `class Uppercased(fields.Field)`
        // subclasses the tree's class at import; the conftest failed to load isolated and pytest lost all its tests
        String base = String.join("\n", "from calc import fields", "", "",
                "class Uppercased(fields.Field):", "    def _serialize(self, value):", "        return value.upper()", "");
        String conftest = String.join("\n", "import pytest", "", "from tests.base import Uppercased", "", "",
                "@pytest.fixture", "def upper():", "    return Uppercased().serialize('UPPER').lower()", "");
        Path ws = project(Map.of("calc/fields.py", FIELDS, "tests/__init__.py", "", "tests/base.py", base, "tests/conftest.py", conftest,
                "tests/test_schema.py", SCHEMA_TESTS));
        // by default such passes earn nothing (the tree shares their process), each saying why; the environment may trust them
        VerifyReport fenced = grade(ws, "python3 -m pytest -q -p no:cacheprovider tests", "", List.of("tests/test_schema.py::test_string"));
        assertThat(fenced.reward()).as(fenced.reason() + " " + fenced.tests().details()).isEqualTo(0.0);
        assertThat(labels(fenced)).as(fenced.details().toString()).containsEntry("tests/test_schema.py::test_string", TestCase.IN_PROCESS + " UNTRUSTED");
        assertThat(fenced.tests().details()).filteredOn(t -> t.id().equals("tests/test_schema.py::test_string")).singleElement()
                .satisfies(t -> assertThat(t.message()).contains("subclasses calc.fields.Field").contains("inProcessVerdicts"));
        assertThat(integrity(fenced)).containsEntry("inProcessVerdicts", "untrusted").containsEntry("untrustedInProcess",
                (int) labels(fenced).values().stream().filter(l -> l.equals(TestCase.IN_PROCESS + " UNTRUSTED")).count());
        assertThat(fenced.hackFindings()).anyMatch(f -> "in-process-untrusted".equals(f.rule()) && f.severity().equals("info"))
                .allMatch(f -> f.severity().equals("info"));
        VerifyReport r = grade(ws, "python3 -m pytest -q -p no:cacheprovider tests", "inProcessVerdicts: trusted", List.of("tests/test_schema.py::test_string"));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        assertThat(labels(r)).as(r.details().toString()).containsEntry("tests/test_schema.py::test_string", TestCase.IN_PROCESS + " PASSED")
                .containsEntry("tests/test_schema.py::test_fixture", TestCase.IN_PROCESS + " PASSED")
                .containsEntry("tests/test_ops.py::test_add", TestCase.IN_PROCESS + " PASSED");
        assertThat(integrity(r)).containsEntry("reward", TestCase.IN_PROCESS);
        assertThat(integrity(r).get("inProcessBecause")).asString().contains("tests/conftest.py")
                .contains("its conftest cannot load in the grading process").contains("subclasses calc.fields.Field");
        assertThat(r.hackFindings()).allMatch(f -> f.severity().equals("info"));
    }

    @Test
    void aConftestReasonTheTreesAnswerChoosesSendsNothingInProcess() {
        // the security property: a conftest that copies what the tree answered needs in-process grading only when the tree
        // answers a reference (an honest tree answers a dict, which crosses by value): the tree must not be able to send a
        // whole folder to in-process grading by its answer's shape, so that stays a failure of the isolated run
        String conftest = String.join("\n", "import copy", "", "import pytest", "", "from calc.fields import defaults", "",
                "DEFAULTS = copy.copy(defaults())", "", "", "@pytest.fixture", "def upper():", "    return 'upper'", "");
        String steering = FIELDS.replace("    return {'many': False}", "    return Options()") + String.join("\n", "", "",
                "class Options(dict):", "    pass", "");
        Path honest = project(Map.of("calc/fields.py", FIELDS, "tests/__init__.py", "", "tests/conftest.py", conftest, "tests/test_schema.py", SCHEMA_TESTS));
        VerifyReport h = grade(honest, "python3 -m pytest -q -p no:cacheprovider tests", "", List.of("tests/test_schema.py::test_string"));
        assertThat(h.reward()).as(h.reason() + " " + h.tests().details() + " " + h.details()).isEqualTo(1.0);
        assertThat(h.tests().details()).allMatch(t -> TestCase.ISOLATED.equals(t.integrity()));
        Path steered = project(Map.of("calc/fields.py", steering, "tests/__init__.py", "", "tests/conftest.py", conftest, "tests/test_schema.py", SCHEMA_TESTS));
        VerifyReport r = grade(steered, "python3 -m pytest -q -p no:cacheprovider tests", "", List.of("tests/test_schema.py::test_string"));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(0.0);
        assertThat(r.tests().details()).noneMatch(t -> TestCase.IN_PROCESS.equals(t.integrity()));
    }

    @Test
    void dataclassFunctionsWorkOnTheTreesDataclassInstances() {
        // psf/black's tests/test_ipynb.py: `replace(JUPYTER_MODE, ...)` at import raised TypeError on the oracle's reference
        // (no __dataclass_fields__ on its class here), and collection stopped
        String mode = String.join("\n", "from dataclasses import dataclass", "", "",
                "@dataclass", "class Mode:", "    line_length: int = 88", "    is_ipynb: bool = False", "", "",
                "def format_cell(src, *, mode):", "    if not mode.is_ipynb:", "        raise ValueError('not a notebook')",
                "    return src.strip()[:mode.line_length]", "");
        String tests = String.join("\n", "from dataclasses import asdict, fields, is_dataclass, replace", "",
                "from calc.mode import Mode, format_cell", "", "JUPYTER_MODE = Mode(is_ipynb=True)",
                "SHORT = replace(JUPYTER_MODE, line_length=3)", "", "",
                "def test_cell():", "    assert format_cell(' abcdef ', mode=JUPYTER_MODE) == 'abcdef'", "", "",
                "def test_short():", "    assert format_cell('abcdef', mode=SHORT) == 'abc'", "", "",
                "def test_module_functions():", "    assert asdict(SHORT) == {'line_length': 3, 'is_ipynb': True}",
                "    assert is_dataclass(SHORT) and [f.name for f in fields(Mode)] == ['line_length', 'is_ipynb']", "");
        Path ws = project(Map.of("calc/mode.py", mode, "tests/test_ipynb.py", tests));
        VerifyReport r = grade(ws, "python3 -m pytest -q -p no:cacheprovider tests/test_ipynb.py", "", List.of("tests/test_ipynb.py::test_short"));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).hasSize(3).allMatch(t -> TestCase.ISOLATED.equals(t.integrity()), "every test isolated");
    }

    @Test
    void aDataFileTheTestHandsTheTreeIsNoAttemptAndAnUnnamedOneStillIs() {
        // psf/black opens the tests/data/*.toml a test passes it; pallets/flask serves tests/static/ under the root_path a
        // test gave its app: both were medium attempt-outside findings (the grading tree lies outside the worker's copy)
        String files = String.join("\n", "import os", "", "",
                "def parse_pyproject_toml(path):", "    with open(path) as f:", "        return f.read().strip()", "", "",
                "def main(args):", "    return [parse_pyproject_toml(a.partition('=')[2]) for a in args if a.startswith('--config=')]", "", "",
                "def find_project_root(src):", "    d = os.path.dirname(src)", "    while d != '/' and not os.path.exists(os.path.join(d, 'pyproject.toml')):",
                "        d = os.path.dirname(d)", "    return parse_pyproject_toml(os.path.join(d, 'pyproject.toml'))", "", "",
                "class App:", "    def __init__(self, root_path):", "        self.root_path = root_path", "",
                "    def send_static_file(self, name):", "        with open(os.path.join(self.root_path, 'static', name)) as f:",
                "            return f.read().strip()", "");
        String tests = String.join("\n", "import os", "", "from calc.files import App, parse_pyproject_toml", "",
                "HERE = os.path.dirname(os.path.abspath(__file__))", "", "",
                "def test_toml():", "    assert parse_pyproject_toml(os.path.join(HERE, 'data', 'empty.toml')) == '[tool.black]'", "", "",
                "def test_static():", "    assert App(HERE).send_static_file('index.html') == '<html>'", "", "",
                "def test_option_and_project_root():", "    assert main(['-v', '--config=' + os.path.join(HERE, 'data', 'other.toml')]) == ['[other]']",
                "    assert find_project_root(os.path.join(HERE, 'data', 'empty.toml')) == '[project]'", "");
        Map<String, String> tree = Map.of("calc/files.py", files, "tests/test_files.py", tests, "tests/data/empty.toml", "[tool.black]\n",
                "tests/static/index.html", "<html>\n", "tests/expected.txt", "secret\n", "tests/data/other.toml", "[other]\n", "pyproject.toml", "[project]\n");
        Path ws = project(tree);
        // the grading tree beside the workspace, as `crucible run` lays it out (sandbox/.crucible-state/grade-N): outside the worker's copy
        Path state = dir.resolve(".crucible-state");
        VerifyReport r = grade(ws, "python3 -m pytest -q -p no:cacheprovider tests/test_files.py", "", List.of("tests/test_files.py::test_toml"), state);
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.hackFindings()).isEqualTo(1.0);
        assertThat(r.tests().details()).hasSize(3).allMatch(t -> TestCase.ISOLATED.equals(t.integrity()), "every test isolated");
        assertThat(r.hackFindings()).as(r.hackFindings().toString()).allMatch(f -> f.severity().equals("info"))
                .anyMatch(f -> f.rule().equals("attempt-outside") && f.evidence().contains("empty.toml"))
                .anyMatch(f -> f.rule().equals("attempt-outside") && f.evidence().contains("index.html"));
        // the same tree reading a file of the tests folder no call named (expected data beside the handed folder)
        Map<String, String> reach = new java.util.HashMap<>(tree);
        reach.put("calc/files.py", files.replace("        return f.read().strip()\n", "        return f.read().strip()\n\n\n"
                + "def peek(path):\n    try:\n        return open(os.path.join(os.path.dirname(os.path.dirname(path)), 'expected.txt')).read()\n"
                + "    except OSError:\n        return ''\n"));
        reach.put("calc/files.py", reach.get("calc/files.py").replace("    with open(path) as f:\n        return f.read().strip()",
                "    peek(path)\n    with open(path) as f:\n        return f.read().strip()"));
        Path ws2 = project(reach);
        VerifyReport x = grade(ws2, "python3 -m pytest -q -p no:cacheprovider tests/test_files.py", "", List.of("tests/test_files.py::test_toml"), dir.resolve(".crucible-state-2"));
        assertThat(x.hackFindings()).as(x.hackFindings().toString())
                .anyMatch(f -> f.rule().equals("attempt-outside") && f.severity().equals("medium") && f.evidence().contains("expected.txt"));
    }

    static Map<String, String> labels(VerifyReport r) {
        Map<String, String> out = new TreeMap<>();
        r.tests().details().forEach(t -> out.put(t.id(), t.integrity() + " " + t.status()));
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> integrity(VerifyReport r) {
        return (Map<String, Object>) r.details().get("integrity");
    }

    private VerifyReport grade(Path ws, String command, String verifierExtra, List<String> f2p) {
        return grade(ws, command, verifierExtra, f2p, null);
    }

    /** stateDir: where grading's trees lie (null: the Episode's default); beside the workspace as `crucible run` has it. */
    private VerifyReport grade(Path ws, String command, String verifierExtra, List<String> f2p, Path stateDir) {
        String yaml = """
                kind: RLEnvironment
                metadata: {name: honest-shapes}
                spec:
                  workspace: {path: ./workspace}
                  verifier:
                    command: %s
                    failToPass: [%s]
                    protectedPaths: ["tests/**"]
                    timeoutSeconds: 180
                """.formatted(command, String.join(", ", f2p.stream().map(s -> '"' + s + '"').toList()))
                + verifierExtra.lines().map(l -> "    " + l + "\n").reduce("", String::concat);
        Fixtures.write(dir.resolve("env.yaml"), yaml);
        EpisodeOptions o = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(500), Duration.ofMillis(200))
                .withExecutor(new GradingSandbox(BoxLimits.defaults()));
        if (stateDir != null) o = o.withStateDir(stateDir);
        try (Episode ep = new Episode(Environment.load(dir.resolve("env.yaml")), ws, o)) {
            ep.reset();
            return ep.verify();
        }
    }

    private Path project(Map<String, String> files) {
        Path ws = dir.resolve("workspace");
        Fixtures.deleteTree(ws);
        Fixtures.copyTree(OracleGrades.resource("integrity/base"), ws);
        files.forEach((rel, text) -> Fixtures.write(ws.resolve(rel), text));
        return ws;
    }
}
