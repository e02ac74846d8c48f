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
 * pytest grading through the isolated oracle, end to end (Episode: reset, verify) with the real grading sandbox:
 * the trusted pytest in one box, each worker in a box of its own started through {@link OracleWorkers}. An honest
 * fix gets reward 1 with every test isolated; an exploit that beats plain pytest gets 0; a test that cannot run
 * split is graded in-process, labelled so, and the reward says in-process; {@code oracle: in-process} grades as before.
 */
class IsolatedGradingTest {
    @TempDir Path dir;

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.ok(), "bubblewrap is needed for the grading sandbox and the oracle's workers: " + a.problem());
    }

    @Test
    void honestFixIsGradedIsolated() {
        VerifyReport r = grade(project("integrity/honest/value-type-own-eq"), "", List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).allMatch(t -> TestCase.ISOLATED.equals(t.integrity()), "every test isolated");
        assertThat(integrity(r)).containsEntry("reward", "isolated");
        // the trusted side's record came back (an extra command in the grading folder once took it over and lost it)
        assertThat((Map<String, Object>) integrity(r).get("workers")).as(r.details().toString()).containsEntry("starts", 1)
                .hasEntrySatisfying("calls", c -> assertThat(((Number) c).longValue()).isPositive());
    }

    @Test
    void aRunThatTimesOutIsLabelledWhereItsTestsRan() {
        Path ws = project("integrity/honest/value-type-own-eq");
        // the tree hangs when the worker imports it: the whole isolated run times out
        Fixtures.write(ws.resolve("calc/__init__.py"), Fixtures.read(ws.resolve("calc/__init__.py")) + "\nimport time\ntime.sleep(60)\n");
        VerifyReport r = grade(ws, "", List.of("tests/test_ops.py::test_divide_negative"), List.of(), 8);
        assertThat(r.reward()).isZero();
        assertThat(r.reason()).contains("timed out");
        assertThat(integrity(r)).as(r.details().toString()).containsEntry("reward", "isolated");
    }

    @Test
    void exploitThatBeatsPlainPytestGetsNothing() {
        VerifyReport r = grade(project("oracle/exploits/float-subclass-eq"), "", List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(0.0);
        assertThat(r.tests().details()).filteredOn(t -> t.id().equals("tests/test_ops.py::test_divide_negative"))
                .singleElement().satisfies(t -> assertThat(t.integrity()).isEqualTo(TestCase.ISOLATED));
    }

    @Test
    void aTestThatImportsFromCachedByteCodeStaysIsolated() {
        // the import system's marshal.loads of a .pyc is not the test turning the tree's bytes into code; before, it sent
        // the test (and in the integrity fixture every test of test_parse.py, via pytest.raises' lazy imports) in-process
        Path ws = project("integrity/honest/value-type-own-eq");
        Fixtures.write(ws.resolve("tests/test_lazy_import.py"), String.join("\n", "import importlib", "import py_compile", "import sys", "",
                "", "def test_imports_a_module_from_its_pyc(tmp_path):",
                "    src = tmp_path / 'lazy_helper.py'",
                "    src.write_text('VALUE = 41 + 1\\n')",
                "    py_compile.compile(str(src), cfile=importlib.util.cache_from_source(str(src)))",
                "    sys.path.insert(0, str(tmp_path))",
                "    import lazy_helper",
                "    assert lazy_helper.VALUE == 42", ""));
        VerifyReport r = grade(ws, "", List.of("tests/test_lazy_import.py::test_imports_a_module_from_its_pyc"));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).as(r.details().toString()).allMatch(t -> TestCase.ISOLATED.equals(t.integrity()));
    }

    @Test
    void codeThatKillsItsWorkerOnPurposeIsNotGradedInProcessInstead() {
        // before: every test the isolated run could not report was graded again in-process, where the code runs
        // beside the verdict; a blind red-team exploit broke its worker at import to get there and reached reward 1
        VerifyReport r = grade(project("oracle/exploits/worker-exits-at-import"), "", List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(0.0);
        assertThat(r.tests().details()).as(r.details().toString()).isNotEmpty()
                .noneMatch(t -> TestCase.IN_PROCESS.equals(t.integrity()));
        assertThat(integrity(r)).doesNotContainKey("inProcessBecause");
    }

    @Test
    void anAttemptThatEarnsNothingIsStillAFinding() {
        // issue 33 point 3: the tree reads the masked test files at import in its worker; it earns nothing, and the
        // worker's audit makes it a flagged finding (rule attempt-test-source) through Episode, not only a zero
        VerifyReport r = grade(project("integrity/exploits/test-file-read-at-import"), "", List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(0.0);
        assertThat(r.hackFindings()).as(r.hackFindings().toString())
                .anyMatch(f -> "attempt-test-source".equals(f.rule()) && f.isHack() && f.evidence().contains("test_ops.py"));
    }

    @Test
    void aTestThatCannotRunSplitFallsBackAloneAndTheRewardSaysSo() {
        VerifyReport r = grade(project("integrity/honest/pickles-by-qualname"), "", List.of("tests/test_pickle.py::test_a_wrapper_pickles_by_reference"));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).filteredOn(t -> t.id().startsWith("tests/test_pickle.py"))
                .isNotEmpty().allMatch(t -> TestCase.IN_PROCESS.equals(t.integrity()));
        assertThat(r.tests().details()).filteredOn(t -> t.id().startsWith("tests/test_ops.py"))
                .isNotEmpty().allMatch(t -> TestCase.ISOLATED.equals(t.integrity()));
        assertThat(integrity(r)).containsEntry("reward", "in-process");
    }

    @Test
    void withoutNamedTestsEveryTestCountsForTheRewardsLabel() {
        // no FAIL_TO_PASS / PASS_TO_PASS (a derived environment without --baseline): every test counts, so one that fell
        // back makes the reward in-process (it was 'isolated', vacuously, over no named test)
        VerifyReport r = grade(project("integrity/honest/pickles-by-qualname"), "", List.of(), List.of());
        assertThat(r.tests().details()).anyMatch(t -> TestCase.IN_PROCESS.equals(t.integrity()));
        assertThat(integrity(r)).as(r.details().toString()).containsEntry("reward", "in-process");
    }

    @Test
    void richPackageAcrossTwoBoxesWithTmpPathAndOneFallback() {
        Path ws = dir.resolve("workspace");
        Fixtures.copyTree(resource("oracle/rich"), ws);
        List<String> ids = List.of("test_int_enum_compares_by_value", "test_namedtuple_against_tuple", "test_dataclass_structural",
                "test_exception_hierarchy", "test_value_types", "test_generator_and_len", "test_in_place_mutation", "test_file_from_tmp_path",
                "test_isinstance", "test_monkeypatch_falls_back").stream().map(n -> "tests/test_rich.py::" + n).collect(java.util.stream.Collectors.toList());
        // unittest-style tests, run by pytest, graded split the same way
        ids.addAll(List.of("tests/test_unit.py::ShapesTest::test_equal", "tests/test_unit.py::ShapesTest::test_raises", "tests/test_unit.py::ShapesTest::test_almost"));
        VerifyReport r = grade(ws, "", ids, List.of());
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.tests().details()).filteredOn(t -> !TestCase.ISOLATED.equals(t.integrity())).extracting(TestCase::id)
                .containsExactly("tests/test_rich.py::test_monkeypatch_falls_back");
    }

    @Test
    void inProcessSwitchGradesAsBefore() {
        VerifyReport r = grade(project("oracle/exploits/float-subclass-eq"), "oracle: in-process\n", List.of());
        assertThat(r.tests().details()).allMatch(t -> TestCase.IN_PROCESS.equals(t.integrity()));
        assertThat(integrity(r)).containsEntry("reward", "in-process");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> integrity(VerifyReport r) {
        return (Map<String, Object>) r.details().get("integrity");
    }

    private VerifyReport grade(Path ws, String verifierExtra, List<String> extraF2p) {
        List<String> f2p = new java.util.ArrayList<>(List.of("tests/test_ops.py::test_divide_negative", "tests/test_ops.py::test_divide_by_zero"));
        f2p.addAll(extraF2p);
        return grade(ws, verifierExtra, f2p, List.of("tests/test_ops.py::test_add"));
    }

    private VerifyReport grade(Path ws, String verifierExtra, List<String> f2p, List<String> p2p) {
        return grade(ws, verifierExtra, f2p, p2p, 120);
    }

    private VerifyReport grade(Path ws, String verifierExtra, List<String> f2p, List<String> p2p, int timeoutSeconds) {
        String yaml = """
                kind: RLEnvironment
                metadata: {name: oracle}
                spec:
                  workspace: {path: ./workspace}
                  verifier:
                    command: python3 -m pytest -q -p no:cacheprovider
                    failToPass: [%s]
                    passToPass: [%s]
                    protectedPaths: ["tests/**"]
                    timeoutSeconds: %d
                """.formatted(String.join(", ", f2p.stream().map(s -> '"' + s + '"').toList()), String.join(", ", p2p), timeoutSeconds)
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

    private Path project(String variant) {
        Path ws = dir.resolve("workspace");
        Fixtures.copyTree(resource("integrity/base"), ws);
        Path shared = resource(variant).resolve("shared.txt");
        if (Files.exists(shared)) Fixtures.copyTree(resource("integrity/shared/" + Fixtures.read(shared).strip()), ws);
        Fixtures.copyTree(resource(variant), ws);
        return ws;
    }

    private static Path resource(String name) {
        try {
            return Path.of(IsolatedGradingTest.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
