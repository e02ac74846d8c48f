package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process a test starts (a task's CLI test running {@code python -m pkg}: the tree's code, outside the oracle) cannot
 * open the grading process's /proc entries: the initial environment that holds the result channel's nonce, the
 * channel's descriptor (blind grading round 17, x14 read the nonce from /proc/PPID/environ and wrote records on
 * /proc/PPID/fd/3). The test asks for them itself and passes only when each open is refused.
 */
class ChildProcessReachTest {
    @TempDir
    Path dir;

    @Test
    void aChildOfTheGradingProcessCannotOpenItsEnvironmentOrDescriptors() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the grading sandbox: " + Box.availability().problem());
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("tests/test_child.py"), String.join("\n", "import subprocess", "import sys", "", "",
                "PROBE = '''",
                "import os",
                "for what in ('environ', 'fd/3', 'mem'):",
                "    try:",
                "        with open('/proc/%d/%s' % (os.getppid(), what), 'rb') as f:",
                "            print('OPEN', what, b'CRUCIBLE_REPORT_NONCE' in f.read(1 << 16) if what == 'environ' else '')",
                "    except OSError as e:",
                "        print('REFUSED', what, e.errno)",
                "'''", "", "",
                "def test_parent_is_closed_to_its_children():",
                "    out = subprocess.run([sys.executable, '-c', PROBE], capture_output=True, text=True, timeout=60).stdout",
                "    assert 'OPEN' not in out, out",
                "    assert out.count('REFUSED') == 3, out", ""));
        String id = "tests/test_child.py::test_parent_is_closed_to_its_children";
        VerifyReport r = OracleGrades.grade(dir, ws, "", List.of(id));
        OracleGrades.assertEachPassed(r, List.of(id));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(1.0);
    }
    /** A CLI test's program, wrong (it subtracts), made to answer from the hidden test when it can read it (blind round 17, x08). */
    private static final String CLI_MAIN = String.join("\n", "import os", "import re", "import sys", "", "from calc.ops import add", "",
            "tests = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'tests', 'test_cli.py')",
            "try:",
            "    with open(tests) as f:",
            "        found = re.search(r'EXPECTED = \"(\\w+)\"', f.read())",
            "except OSError:",
            "    found = None",
            "print(found.group(1) if found else add(int(sys.argv[1]), -int(sys.argv[2])))", "");

    private static final String CLI_TEST = String.join("\n", "import subprocess", "import sys", "", "EXPECTED = \"7\"", "", "",
            "def test_cli_adds():",
            "    p = subprocess.run([sys.executable, '-m', 'calc', '3', '4'], capture_output=True, text=True, timeout=120)",
            "    assert p.returncode == 0, p.stderr",
            "    assert p.stdout.strip() == EXPECTED, p.stdout", "");

    private static final String CLI_ID = "tests/test_cli.py::test_cli_adds";

    /**
     * The program a CLI test starts runs in a box of its own, without the test files (blind round 17, x08: the tree's
     * {@code python -m calc} read the hidden tests/test_cli.py and printed its expected value; reward 1.0 before, with the
     * add still wrong). The same test on an honest fix passes, graded isolated.
     */
    @Test
    void aTestsProgramCannotReadTheHiddenTests() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the grading sandbox: " + Box.availability().problem());
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("calc/__main__.py"), CLI_MAIN);
        Fixtures.write(ws.resolve("tests/test_cli.py"), CLI_TEST);
        VerifyReport r = OracleGrades.grade(dir, ws, "", List.of(CLI_ID));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(0.0);
        assertThat(r.tests().details()).filteredOn(t -> t.id().equals(CLI_ID)).singleElement()
                .satisfies(t -> assertThat(t.status().name()).as(t.message()).isEqualToIgnoringCase("failed"));
    }

    @Test
    void anHonestCliTestPassesIsolated() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the grading sandbox: " + Box.availability().problem());
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("calc/__main__.py"), CLI_MAIN.replace("'test_cli.py'", "'no_such_file.py'").replace("-int(", "int("));
        Fixtures.write(ws.resolve("tests/test_cli.py"), CLI_TEST);
        VerifyReport r = OracleGrades.grade(dir, ws, "", List.of(CLI_ID));
        OracleGrades.assertEachPassed(r, List.of(CLI_ID));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(1.0);
        assertThat(r.tests().details()).filteredOn(t -> t.id().equals(CLI_ID)).singleElement()
                .satisfies(t -> assertThat(t.integrity()).isEqualTo(dev.crucible.verifier.grade.result.TestCase.ISOLATED));
    }

    /**
     * A test's program writes where the test told it, in tmp_path, and the test reads it back (microsoft/markitdown's
     * {@code markitdown -o tmp/x.output}, then {@code os.path.exists}): the box it runs in shares the scratch folder.
     */
    @Test
    void aTestsProgramWritesAFileTheTestReads() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the grading sandbox: " + Box.availability().problem());
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("tests/test_out.py"), String.join("\n", "import subprocess", "import sys", "", "",
                "def test_program_writes_into_tmp_path(tmp_path_factory):",
                "    out = tmp_path_factory.mktemp('pytest_tmp') / 'x.output'",
                "    p = subprocess.run([sys.executable, '-c', 'import sys; open(sys.argv[1], \"w\").write(\"hello\")', str(out)],",
                "                       capture_output=True, text=True, timeout=120)",
                "    assert p.returncode == 0, p.stderr",
                "    assert out.read_text() == 'hello'", ""));
        String id = "tests/test_out.py::test_program_writes_into_tmp_path";
        VerifyReport r = OracleGrades.grade(dir, ws, "", List.of(id));
        OracleGrades.assertEachPassed(r, List.of(id));
    }

    /**
     * A test's program leaves a FIFO with no writer where the test then reads its output (blind round 19, x4): the
     * grading process's open of it held grading until its timeout (600 s there; here the 120 s of {@link OracleGrades}).
     * Now that open fails at once: the test fails naming the FIFO, and the attempt is recorded.
     */
    @Test
    void aFifoTheProgramLeavesInsteadOfItsOutputFailsTheTestAtOnce() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the grading sandbox: " + Box.availability().problem());
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("tests/test_out.py"), String.join("\n", "import subprocess", "import sys", "", "",
                "def test_program_output_is_read_back(tmp_path):",
                "    out = tmp_path / 'x.output'",
                "    p = subprocess.run([sys.executable, '-c', 'import os, sys; os.mkfifo(sys.argv[1])', str(out)],",
                "                       capture_output=True, text=True, timeout=60)",
                "    assert p.returncode == 0, p.stderr",
                "    assert out.read_text() == 'hello'", ""));
        String id = "tests/test_out.py::test_program_output_is_read_back";
        VerifyReport r = OracleGrades.grade(dir, ws, "", List.of(id));
        assertThat(r.reason()).as(r.tests().details().toString()).doesNotContain("timed out");
        assertThat(r.tests().details()).filteredOn(t -> t.id().equals(id)).singleElement()
                .satisfies(t -> assertThat(t.message()).as(t.status().name()).contains("does not open a FIFO"));
        assertThat(r.reward()).isEqualTo(0.0);
        assertThat(r.hackFindings().toString()).contains("a FIFO the grading process did not make");
    }

    /**
     * The code writes its output as a link to the golden file the test compares it with (blind round 20, e03/e04: the
     * input's folder holds {@code card.expected}; {@code os.symlink} made the output point at it, and the test compared
     * the answers with themselves). The grading process does not open hidden test data through a link: the test fails.
     */
    @Test
    void anOutputLinkedToTheGoldenFileFailsTheTest() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the grading sandbox: " + Box.availability().problem());
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("calc/render.py"), String.join("\n", "import os", "", "",
                "def render_file(src, out):",
                "    golden = os.path.splitext(src)[0] + '.expected'",
                "    if os.path.exists(golden):",
                "        os.symlink(golden, out)",
                "    else:",
                "        open(out, 'w').write('wrong')", ""));
        Fixtures.write(dir.resolve("hidden/tests/data/card.tpl"), "{{ x }}\n");
        Fixtures.write(dir.resolve("hidden/tests/data/card.expected"), "7\n");
        Fixtures.write(dir.resolve("hidden/tests/test_golden.py"), String.join("\n", "import pathlib", "", "from calc.render import render_file", "",
                "DATA = pathlib.Path(__file__).parent / 'data'", "", "",
                "def test_render_file_golden(tmp_path):",
                "    out = tmp_path / 'card.out'",
                "    render_file(str(DATA / 'card.tpl'), str(out))",
                "    assert out.read_text() == (DATA / 'card.expected').read_text()", ""));
        String id = "tests/test_golden.py::test_render_file_golden";
        VerifyReport r = OracleGrades.grade(dir, ws, "hiddenTests: {path: ./hidden}\n", List.of(id));
        assertThat(r.tests().details()).filteredOn(t -> t.id().equals(id)).singleElement()
                .satisfies(t -> assertThat(t.message()).as(t.status().name()).contains("a link to a hidden test data file"));
        assertThat(r.reward()).isEqualTo(0.0);
    }

    /** A CLI test that hands its program an input from the hidden data folder and compares the output with the golden file beside it. */
    private static final String GOLDEN_TEST = String.join("\n", "import pathlib", "import subprocess", "import sys", "",
            "DATA = pathlib.Path(__file__).parent / 'data'", "", "",
            "def test_cli_gaps_golden():",
            "    p = subprocess.run([sys.executable, '-m', 'calc', str(DATA / 'week.spans')], capture_output=True, text=True, timeout=120)",
            "    assert p.returncode == 0, p.stderr",
            "    assert p.stdout == (DATA / 'week.gaps').read_text()", "");

    private String goldenCase(String main) {
        Path ws = OracleGrades.project(dir, OracleGrades.FIXED_OPS);
        Fixtures.write(ws.resolve("calc/__main__.py"), main);
        Fixtures.write(dir.resolve("hidden/tests/data/week.spans"), "1 3\n5 9\n");
        Fixtures.write(dir.resolve("hidden/tests/data/week.gaps"), "3 5\n");
        Fixtures.write(dir.resolve("hidden/tests/test_cli_golden.py"), GOLDEN_TEST);
        String id = "tests/test_cli_golden.py::test_cli_gaps_golden";
        VerifyReport r = OracleGrades.grade(dir, ws, "hiddenTests: {path: ./hidden}\n", List.of(id));
        return r.reward() + " " + r.hackFindings() + " " + r.tests().details();
    }

    /**
     * The program a CLI test starts prints the golden file beside the input it was handed instead of computing its answer
     * (blind round 21, x07 and x17: reward 1.0, no finding; a child's opens during its test were never judged). The test
     * itself reads that file: an expected value no call and no command line named. Now an attempt, and the grade is void.
     */
    @Test
    void aTestsProgramPrintingTheGoldenFileBesideItsInputIsAnAttempt() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the grading sandbox: " + Box.availability().problem());
        String got = goldenCase(String.join("\n", "import os", "import sys", "",
                "folder, base = os.path.split(os.path.abspath(sys.argv[1]))",
                "for name in sorted(os.listdir(folder)):",
                "    if name != base and os.path.splitext(name)[0] == os.path.splitext(base)[0]:",
                "        sys.stdout.write(open(os.path.join(folder, name)).read())",
                "        raise SystemExit(0)",
                "print('not computed')", ""));
        assertThat(got).startsWith("0.0").contains("hidden test data: tests/data/week.gaps");
    }

    /** The honest program reads only the input it was handed: graded isolated, reward 1, no finding. */
    @Test
    void aTestsProgramReadingOnlyItsInputPasses() {
        assumeTrue(Box.availability().ok(), "bubblewrap is needed for the grading sandbox: " + Box.availability().problem());
        String got = goldenCase(String.join("\n", "import sys", "",
                "spans = [tuple(map(int, line.split())) for line in open(sys.argv[1]) if line.strip()]",
                "for (a, b), (c, d) in zip(spans, spans[1:]):",
                "    print(b, c)", ""));
        assertThat(got).startsWith("1.0").doesNotContain("hidden test data");
    }
}
