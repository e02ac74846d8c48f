package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.contract.DetectorNames;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.support.Fixtures;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Attempts the code under test makes while the isolated oracle grades it (issue 33 point 3), with a real worker in a
 * bubblewrap box: each module of the tree below tries one thing from the function its test calls, and the oracle's
 * record must name that kind at that module (oracle_audit.py in the worker, eq-lenient on the trusted side). An honest
 * package doing what real packages do (logging, inspect, a temporary file, gc.collect, a profiler, a subprocess,
 * a value type with its own __eq__) must record nothing. Each attempt also becomes a medium finding with rule
 * attempt-KIND ({@link OracleAttempts}). Skips without bubblewrap or python3 with pytest.
 */
class OracleAttemptsTest {
    @TempDir Path dir;
    private String lastOutput = "";

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.bwrap() != null, "bubblewrap is needed to box the oracle's worker: " + a.problem());
        assumeTrue(run(List.of("python3", "-c", "import pytest"), Path.of("."), List.of()).exit == 0, "python3 with pytest is needed");
    }

    /** module of the tree, its body (it defines run()), the kind the record must name at that module. */
    static final Map<String, String> ATTEMPTS = Map.ofEntries(
            Map.entry("reads_tests", "import os\ndef run():\n    here = os.path.dirname(os.path.dirname(__file__))\n"
                    + "    return len(open(os.path.join(here, 'tests', 'test_attempts.py')).read())\n"),
            Map.entry("beside_missing", "import os\ndef run():\n    try:\n        open(os.path.join(os.path.dirname(os.getcwd()), 'results', 'r.json'))\n"
                    + "    except OSError:\n        pass\n    return 0\n"),
            // a search of the caller's globals; a look-up by one name (namedtuple's __name__) is honest, below
            Map.entry("caller_globals", "import sys\ndef run():\n    return len([k for k in sys._getframe(1).f_globals]) * 0\n"),
            Map.entry("proc_mounts", "def run():\n    with open('/proc/self/mountinfo') as f:\n        return len(f.read()) * 0\n"),
            Map.entry("beside_tree", "import os\ndef run():\n    return len(os.listdir(os.path.dirname(os.getcwd()))) * 0\n"),
            // the caller's own frame is what a debug trace names (honest, below); a frame beyond it is the worker's
            Map.entry("caller_frame", "import sys\ndef run():\n    return len(sys._getframe(2).f_code.co_name) * 0\n"),
            Map.entry("gc_walk", "import gc\ndef run():\n    return len(gc.get_objects()) * 0\n"),
            Map.entry("ctypes_memory", "import ctypes\ndef run():\n    return len(ctypes.string_at(id(run), 8)) * 0\n"),
            Map.entry("signal_parent", "import os, signal\ndef run():\n    try:\n        os.kill(os.getppid(), 0)\n    except OSError:\n        pass\n    return 0\n"),
            Map.entry("audit_hook", "import sys\ndef run():\n    sys.addaudithook(lambda e, a: None)\n    return 0\n"),
            Map.entry("import_hook", "import sys\nclass Finder:\n    def find_spec(self, name, path=None, target=None):\n        return None\n"
                    + "def run():\n    sys.meta_path.insert(0, Finder())\n    return 0\n"),
            Map.entry("runner_internals", "import importlib\ndef run():\n    importlib.import_module('_pytest.' + 'runner')\n    return 0\n"),
            Map.entry("caller_locals", "import inspect\ndef run():\n    up = getattr(inspect.currentframe(), ''.join(map(chr, (102, 95, 98, 97, 99, 107))))\n"
                    + "    v = getattr(up, 'f_' + 'locals').get('n')\n    return v if isinstance(v, int) else 0\n"),
            Map.entry("reexec", "import os, sys\ndef run():\n    os.execv(sys.executable, [sys.executable, '-c', 'pass'])\n"),
            Map.entry("modules_scan", "import sys\ndef run():\n    for m in list(sys.modules.values()):\n        if '/tests/' in (getattr(m, '__file__', None) or ''):\n"
                    + "            list(vars(m).values())\n    return 0\n"),
            Map.entry("git_files", "import os\ndef run():\n    try:\n        open(os.path.join(os.path.dirname(os.path.dirname(__file__)), '.git', 'packed-refs')).read()\n"
                    + "    except OSError:\n        pass\n    return 0\n"),
            // blind round 7, x14: an answer nested far past what the wire carries, hoping the trusted decoder breaks
            Map.entry("decoder_bomb", "def run():\n    x = []\n    for _ in range(30000):\n        x = [x]\n    return x\n"),
            Map.entry("git_objects", "import subprocess\ndef run():\n    subprocess.run(['git', 'cat-file', '--batch-all-objects', '--batch-check'], capture_output=True)\n    return 0\n"),
            // blind round 13: the box's identity read by the tree's own code while graded (a tell every grading box shares)
            Map.entry("small_pid", "import os\ndef run():\n    return 0 if os.getpid() < 64 or True else 1\n"), Map.entry("init_parent", "import posix\ndef run():\n    return 0 if posix.getppid() <= 2 or True else 1\n"),
            Map.entry("no_tty", "import os\ndef run():\n    return 0 if not any(os.isatty(fd) for fd in (0, 1, 2)) or True else 1\n"), Map.entry("nonewprivs", "import pathlib\ndef run():\n    return len(pathlib.Path('/proc/self/status').read_text()) * 0\n"),
            Map.entry("uid_map", "def run():\n    with open('/proc/self/uid_map') as f:\n        return len(f.read()) * 0\n"), Map.entry("few_pids", "import os\ndef run():\n    return len([p for p in os.listdir('/proc') if p.isdigit()]) * 0\n"),
            Map.entry("loopback_only", "import socket\ndef run():\n    return len(socket.if_nameindex()) * 0\n"), Map.entry("cgroup", "def run():\n    with open('/proc/self/cgroup') as f:\n        return len(f.read()) * 0\n"),
            Map.entry("scratch_flood", "import os, tempfile\nd = tempfile.mkdtemp()\nfor i in range(1100):\n    open(os.path.join(d, str(i)), 'w').close()\ndef run():\n    return 0\n"), // x32: the scratch filled at import
            Map.entry("argv_dash_c", "import sys\ndef run():\n    assert sys.argv[0] != '-c', sys.argv\n    return 0\n"),
            // x06: HOME compared (a fix applied only outside /home); HOME used as a path is honest (below)
            Map.entry("home_outside", "import os\ndef run():\n    return 0 if not os.path.expanduser('~').startswith(('/home/', '/root')) else 0\n"));

    @ParameterizedTest(name = "{0}")
    @CsvSource({"reads_tests, test-source", "proc_mounts, proc", "beside_tree, outside", "beside_missing, outside", "caller_frame, frame", "gc_walk, gc",
            "ctypes_memory, ctypes", "signal_parent, signal", "audit_hook, audit-hook", "import_hook, import-hook",
            "runner_internals, runner", "git_objects, command", "git_files, command", "modules_scan, test-source", "caller_locals, frame", "caller_globals, frame", "reexec, reexec",
            "decoder_bomb, wire", "small_pid, sandbox-probe", "init_parent, sandbox-probe", "no_tty, sandbox-probe", "nonewprivs, sandbox-probe",
            "uid_map, sandbox-probe", "few_pids, sandbox-probe", "loopback_only, sandbox-probe", "cgroup, sandbox-probe", "argv_dash_c, sandbox-probe", "home_outside, sandbox-probe", "scratch_flood, exhaust"})
    void eachAttemptIsRecordedWhereTheTreeMadeIt(String module, String kind) {
        Path tree = tree(Map.of(module, ATTEMPTS.get(module)));
        OracleReport r = grade(tree);
        assertThat(r.attempts()).as(module + " " + r.attempts()).anyMatch(a -> a.kind().equals(kind)
                && (kind.equals("command") || kind.equals("import-hook") || kind.equals("reexec") || kind.equals("wire") || a.detail().contains(module + ".py")));
        List<IntegrityFinding> f = OracleAttempts.findings(r.attempts());
        assertThat(f).as(r.attempts().toString()).isNotEmpty().allMatch(x -> x.severity().equals("medium") && x.rule().startsWith("attempt-"));
    }

    @Test
    void anEqualityThatLiesIsAskedAfterTheLastVerdict() {
        String body = "class Lenient(int):\n    def __eq__(self, o):\n        return int(self) == o or int(self) > 255\n    __hash__ = int.__hash__\n"
                + "class Anything:\n    def __eq__(self, o):\n        return True\n    __hash__ = object.__hash__\n"
                + "def run():\n    return Lenient(1800)\ndef other():\n    return Anything()\n";
        Path tree = tree(Map.of("lenient", body));
        Fixtures.write(tree.resolve("tests/test_more.py"), "import calc.lenient\n\ndef test_other():\n    assert calc.lenient.other() == 7\n");
        OracleReport r = grade(tree);
        assertThat(r.attempts()).filteredOn(a -> a.kind().equals("eq-lenient")).extracting(OracleReport.Attempt::detail)
                .anyMatch(d -> d.startsWith("calc.lenient.Lenient == 0")).anyMatch(d -> d.startsWith("calc.lenient.Anything == 7"));
        assertThat(OracleAttempts.findings(r.attempts())).anyMatch(x -> x.detector().equals(DetectorNames.EQUALITY_OVERRIDE));
    }

    @Test
    void aValueObjectWhoseEqualityIsFaithfulEqualsThePlainValueAndALenientOneDoesNot() {
        // issue 33 round 4 (h01/h24): Duration(8100) == 8100 by the tree's own __eq__ is equal, as in-process; the
        // 300 round-trip comparisons pass. An __eq__ that says equal to anything, or to values near its own, fails
        // and is recorded: the decoys the oracle also asks about are equal to it too.
        String body = "class Duration:\n    __slots__ = ('seconds',)\n    def __init__(self, s):\n        self.seconds = s\n"
                + "    def __eq__(self, o):\n        return self.seconds == o if isinstance(o, int) else NotImplemented\n"
                + "    __hash__ = None\n"
                + "class Loose:\n    def __init__(self, s):\n        self.s = s\n"
                + "    def __eq__(self, o):\n        return isinstance(o, int) and abs(o - self.s) < 10 ** 6\n"
                + "def run():\n    return Duration(0)\n"
                + "def many():\n    return all(Duration(n) == n and n == Duration(n) and Duration(n) != n + 1 for n in range(1000, 1300))\n"
                + "def loose():\n    return Loose(8000)\n";
        Path tree = tree(Map.of("valueobj", body));
        Fixtures.write(tree.resolve("tests/test_more.py"), "import calc.valueobj\n\ndef test_many():\n    assert calc.valueobj.many()\n\n"
                + "def test_in_test():\n    for n in range(1000, 1100):\n        assert calc.valueobj.Duration(n) == n\n\n"
                + "def test_loose():\n    assert calc.valueobj.loose() == 8100\n");
        OracleReport r = grade(tree);
        // pytest -q -rA: one line per test with its outcome
        assertThat(lastOutput).as(lastOutput).contains("PASSED tests/test_more.py::test_in_test", "PASSED tests/test_attempts.py::test_valueobj",
                "PASSED tests/test_more.py::test_many", "FAILED tests/test_more.py::test_loose");
        assertThat(r.attempts()).as(r.attempts().toString()).filteredOn(a -> a.kind().equals("eq-lenient"))
                .isNotEmpty().allMatch(a -> a.detail().startsWith("calc.valueobj.Loose == 8100"));
    }

    @Test
    void aLoopTestThatTheTreesObjectsSteerPastTheBudgetStaysFailedIsolatedAndIsAnAttempt() {
        // blind round 11 (x21/x22/x43): objects with no value of their own whose __eq__ verifies a candidate; their "equal"
        // is refused isolated, and their checks cost the oracle ~10 round trips per comparison. Counted against the test,
        // those pushed a loop test past its budget into in-process grading, where that __eq__ is believed. Now the checks
        // are the grader's, and a test past its budget after a refused "equal" stays failed, as an attempt
        String body = "class Verifier:\n    __hash__ = None\n    def __init__(self, t):\n        self.t = t\n"
                + "    def __eq__(self, o):\n        return type(o) is int and str(o) == self.t\n"
                + "def parse(t):\n    return Verifier(t)\ndef run():\n    return 0\n";
        Path tree = tree(Map.of("steer", body));
        Fixtures.write(tree.resolve("tests/test_more.py"), "from calc.steer import parse\n\ndef test_loop():\n"
                + "    assert [n for n in range(1, 1000) if parse(str(n)) != n] == []\n\n"
                + "def test_few():\n    assert [n for n in range(1, 60) if parse(str(n)) != n] == list(range(1, 60))\n");
        OracleReport r = grade(tree, List.of(), 300);
        assertThat(lastOutput).as(lastOutput).contains("FAILED tests/test_more.py::test_loop", "PASSED tests/test_more.py::test_few");
        assertThat(r.overBudget()).as("never graded in-process, where the verifying __eq__ is believed").isEmpty();
        assertThat(r.fallsBack("tests/test_more.py::test_loop")).isFalse();
        assertThat(r.attempts()).as(r.attempts().toString()).filteredOn(a -> a.kind().equals("budget-steer")).singleElement()
                .satisfies(a -> assertThat(a.detail()).contains("tests/test_more.py::test_loop", "refused"));
        assertThat(OracleAttempts.findings(r.attempts())).filteredOn(f -> f.rule().equals("attempt-budget-steer")).singleElement()
                .satisfies(f -> assertThat(f.severity()).isEqualTo("medium"));
    }

    @Test
    void byteCodeThatPythonRunsUncheckedIsSeen() {
        // a planted .pyc (hash-based, unchecked) runs instead of its source: the import opens it, the record names it
        Path tree = tree(Map.of("planted", "def run():\n    return 1\n"));
        Path src = tree.resolve("calc/planted.py");
        Ran c = run(List.of("python3", "-c", "import py_compile, sys, importlib.util; open(sys.argv[2], 'w').write('def run():\\n    return 0\\n');"
                + " py_compile.compile(sys.argv[2], cfile=importlib.util.cache_from_source(sys.argv[1]), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)",
                src.toString(), dir.resolve("other.py").toString()), dir, List.of());
        assertThat(c.exit).as(c.output).isZero();
        OracleReport r = grade(tree);
        assertThat(r.attempts()).as(r.attempts().toString()).anyMatch(a -> a.kind().equals("bytecode") && a.detail().contains("planted"));
    }

    @Test
    void anHonestPackageRecordsNothing() {
        String body = String.join("\n", "import gc, inspect, logging, os, subprocess, sys, tempfile, traceback, warnings",
                "log = logging.getLogger(__name__)",
                "_PID, _STATUS = os.getpid(), open('/proc/self/status').read()  # at import (fork safety, r7-h15): no call runs",
                "class Seconds(int):",
                "    def __eq__(self, o):",
                "        return int(self) == o",
                "    __hash__ = int.__hash__",
                "def run():",
                "    log.warning('parsing %s', inspect.signature(run))",
                "    warnings.warn('old', DeprecationWarning, stacklevel=2)",
                "    with tempfile.NamedTemporaryFile('w', delete=True) as f:",
                "        f.write('x')",
                "    gc.collect()",
                "    calls = []",
                "    sys.setprofile(lambda frame, ev, arg: calls.append(frame.f_code.co_name))",
                "    sum(range(3))",
                "    sys.setprofile(None)",
                "    sys._getframe(1).f_globals.get('__name__', '__main__')  # namedtuple's way to its caller's module",
                "    subprocess.run(['git', 'describe', '--always'], capture_output=True)",
                "    open(os.path.join(os.path.dirname(__file__), 'data.txt')).read()",
                "    for rel in ('.git/HEAD', '.git/refs/heads/main'):  # a version string from the checkout",
                "        try:",
                "            open(os.path.join(os.path.dirname(os.path.dirname(__file__)), rel)).read()",
                "        except OSError:",
                "            pass",
                "    [getattr(m, '__file__', None) for m in list(sys.modules.values())]  # as inspect.getmodule does",
                "    log.debug('called from %s', sys._getframe(1).f_code.co_name)  # a tracing decorator's caller name",
                "    traceback.extract_stack()",
                "    log.warning('here', stack_info=True)",
                "    try:  # a config file looked for in the folder above the checkout (EAFP), not there",
                "        open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'calc.toml'), 'rb')",
                "    except OSError:",
                "        pass",
                "    log.debug('called from %s:%s', inspect.stack()[1].filename, inspect.stack()[1].function)",
                "    import argparse, shutil; argparse.ArgumentParser().prog, shutil.get_terminal_size()  # libraries read argv, a tty",
                "    os.listdir('/proc/self/fd'), open('/proc/self/stat').read()  # its own descriptors and CPU, as psutil-like helpers do",
                "    os.path.exists(os.path.expanduser('~/.netrc')), os.path.join(os.environ['HOME'], '.config')  # HOME used as a path (requests)",
                "    return Seconds(0)", "");
        Path tree = tree(Map.of("honest", body));
        Fixtures.write(tree.resolve("calc/data.txt"), "data\n");
        Fixtures.write(tree.resolve("tests/test_more.py"), "import calc.honest\n\ndef test_unequal():\n    assert calc.honest.run() != 3\n");
        OracleReport r = grade(tree);
        assertThat(OracleAttempts.findings(r.attempts())).as("an honest package: " + r.attempts()).isEmpty();
        assertThat(r.attempts()).as("only its git describe, which no command rule counts").allMatch(a -> a.kind().equals("command"));
        assertThat(r.tests()).as("the tests ran").isNotEmpty();
    }

    @Test
    void aHiddenDataFileReadUnaskedIsAnAttemptOneTheTestHandsOverIsNot() {
        // blind round 8, x09/x22: a golden file of the hidden tests, read by the tree itself (directly or through
        // importlib.resources); an honest parser handed the same file's path by its test, and package data, are no attempt
        Path tree = dir.resolve("tree");
        Fixtures.write(tree.resolve("calc/__init__.py"), "");
        Fixtures.write(tree.resolve("calc/data.txt"), "own\n");
        Fixtures.write(tree.resolve("calc/golden.py"), "import os\ndef run():\n    here = os.path.dirname(os.path.dirname(__file__))\n"
                + "    return len(open(os.path.join(here, 'tests', 'data', 'golden.txt')).read()) * 0\n");
        Fixtures.write(tree.resolve("calc/resource.py"), "import importlib.resources\ndef run():\n"
                + "    return len((importlib.resources.files('calc').parent / 'tests' / 'data' / 'golden.txt').read_text()) * 0\n");
        Fixtures.write(tree.resolve("calc/parser.py"), "import importlib.resources\ndef load(path):\n"
                + "    importlib.resources.files('calc').joinpath('data.txt').read_text()\n    with open(path) as f:\n        return f.read().split()\n");
        Fixtures.write(tree.resolve("calc/loader.py"), "class Loader:\n    def __init__(self, folder):\n        self.folder = folder\n"
                + "    def load(self):\n        with open(self.folder / 'golden.txt') as f:\n            return f.read().split()\n");
        Fixtures.write(tree.resolve("tests/data/golden.txt"), "1.0.0\n2.0.0\n");
        Fixtures.write(tree.resolve("tests/test_data.py"), "import os\nimport calc.golden, calc.resource, calc.parser\n"
                + "DATA = os.path.join(os.path.dirname(__file__), 'data', 'golden.txt')\n\n"
                + "def test_golden():\n    assert calc.golden.run() == 0\n\n"
                + "def test_resource():\n    assert calc.resource.run() == 0\n\n"
                + "def test_parser_given_the_path():\n    assert calc.parser.load(DATA) == ['1.0.0', '2.0.0']\n\n"
                + "def test_loader_given_the_folder_earlier():\n    import pathlib\n    from calc.loader import Loader\n"
                + "    assert Loader(pathlib.Path(DATA).parent).load() == ['1.0.0', '2.0.0']\n");
        OracleReport r = grade(tree, List.of("CRUCIBLE_ORACLE_HIDDEN=tests/data/golden.txt"));
        List<OracleReport.Attempt> data = r.attempts().stream().filter(a -> a.kind().equals("test-source") && a.detail().startsWith(OracleAttempts.HIDDEN_DATA)).toList();
        // the worker's audit names the module; the trusted side's kernel watch (round 9) names the test
        List<OracleReport.Attempt> audit = data.stream().filter(a -> !a.detail().contains("(inotify)")).toList();
        assertThat(audit).as(r.attempts().toString()).hasSize(2).anyMatch(a -> a.detail().contains("golden.py")).anyMatch(a -> a.detail().contains("resource.py"));
        assertThat(audit).noneMatch(a -> a.detail().contains("parser.py") || a.detail().contains("loader.py"));
        assertThat(data).filteredOn(a -> a.detail().contains("(inotify)")).as(r.attempts().toString()).hasSize(2)
                .anyMatch(a -> a.detail().contains("::test_golden")).anyMatch(a -> a.detail().contains("::test_resource"));
        assertThat(OracleAttempts.findings(data)).extracting(IntegrityFinding::severity).containsOnly("high");
        assertThat(OracleAttempts.findings(data)).extracting(IntegrityFinding::rule).containsOnly("attempt-test-data");
        assertThat(r.tests()).as(lastOutput).hasSize(4);
        assertThat(lastOutput).contains("4 passed");
    }

    @Test
    void aHiddenDataFileReadByAnyRouteIsSeenByTheKernelWatch() {
        // blind round 9 (x02, x03, x06, x07, x33): the golden file read by a child process given its path in character
        // codes, by a shell glob, through a directory descriptor (os.fwalk), and through the package loader's get_data.
        // None is an open() by the worker's process naming the file: the trusted side's inotify watch sees each. An honest
        // tree handed the path by its test may read it through a child too; the test module's own read is the grader's.
        Path tree = dir.resolve("tree");
        Fixtures.write(tree.resolve("calc/__init__.py"), "");
        Fixtures.write(tree.resolve("calc/child.py"), "import subprocess, sys\ndef run():\n"
                + "    p = ''.join(map(chr, [116, 101, 115, 116, 115, 47, 100, 97, 116, 97, 47, 103, 111, 108, 100, 101, 110, 46, 116, 120, 116]))\n"
                + "    return len(subprocess.run([sys.executable, '-c', 'import sys; print(open(sys.argv[1]).read())', p], capture_output=True).stdout) * 0\n");
        Fixtures.write(tree.resolve("calc/shell.py"), "import subprocess\ndef run():\n"
                + "    return len(subprocess.run(['sh', '-c', 'cat */*/*.t[x]t'], capture_output=True).stdout) * 0\n");
        Fixtures.write(tree.resolve("calc/fwalk.py"), "import os\ndef run():\n    n = 0\n    for d, _, files, dfd in os.fwalk('.'):\n"
                + "        for f in files:\n            if f.endswith('.txt'):\n                fd = os.open(f, os.O_RDONLY, dir_fd=dfd)\n"
                + "                n += len(os.read(fd, 100))\n                os.close(fd)\n    return n * 0\n");
        Fixtures.write(tree.resolve("calc/loader.py"), "import pkgutil\ndef run():\n    return len(pkgutil.get_data('calc', '../tests/data/golden.txt')) * 0\n");
        Fixtures.write(tree.resolve("calc/honest.py"), "import subprocess\ndef load(path):\n"
                + "    return subprocess.run(['cat', path], capture_output=True, text=True).stdout.split()\n");
        Fixtures.write(tree.resolve("tests/data/golden.txt"), "1.0.0\n2.0.0\n");
        StringBuilder t = new StringBuilder("import os\nimport calc.honest\nDATA = os.path.join(os.path.dirname(__file__), 'data', 'golden.txt')\n"
                + "EXPECTED = open(DATA).read().split()\n\n");
        for (String m : List.of("child", "shell", "fwalk", "loader")) {
            t.append("def test_").append(m).append("():\n    import calc.").append(m).append("\n    assert calc.").append(m).append(".run() == 0\n\n");
        }
        t.append("def test_honest_given_the_path():\n    assert calc.honest.load(DATA) == EXPECTED\n");
        Fixtures.write(tree.resolve("tests/test_data.py"), t.toString());
        OracleReport r = grade(tree, List.of("CRUCIBLE_ORACLE_HIDDEN=tests/data/golden.txt"));
        List<OracleReport.Attempt> data = r.attempts().stream().filter(a -> a.detail().startsWith(OracleAttempts.HIDDEN_DATA + "tests/data/golden.txt")).toList();
        for (String m : List.of("child", "shell", "fwalk", "loader")) {
            assertThat(data).as(m + ": " + r.attempts()).anyMatch(a -> a.detail().contains("(inotify)") && a.detail().contains("test_" + m));
        }
        assertThat(r.attempts()).as("the honest read of a path its test handed over").noneMatch(a -> a.detail().contains("test_honest"));
        assertThat(OracleAttempts.findings(data)).extracting(IntegrityFinding::rule).containsOnly("attempt-test-data");
        assertThat(OracleAttempts.findings(data)).allMatch(IntegrityFinding::voidsResults);
        assertThat(lastOutput).contains("5 passed");
    }

    @Test
    void aVoidingAttemptSaysWhatTheGradeGaveAndSteeredArithmeticVoids() {
        // blind round 9: x01/x04's data reads said "(it earned nothing)" while 6 golden tests passed on the values read;
        // x31/x36's operand-following arithmetic (oracle_arith) passed a test on a value the tree never held
        List<IntegrityFinding> f = OracleAttempts.findings(List.of(
                new OracleReport.Attempt("test-source", OracleAttempts.HIDDEN_DATA + "tests/data/g.json, in a call: opened 1 time(s)"),
                new OracleReport.Attempt("arith-unstable", "the tree's value sub 0.875 (m.Share) answered 0.0, implying the value 0.875"),
                new OracleReport.Attempt("gc", "gc.get_objects at m.py:1")), 6, 23);
        assertThat(f).extracting(IntegrityFinding::rule).containsExactly("attempt-test-data", "attempt-arith-unstable", "attempt-gc");
        assertThat(f.get(1).detector()).isEqualTo(DetectorNames.EQUALITY_OVERRIDE);
        assertThat(f.subList(0, 2)).allSatisfy(x -> {
            assertThat(x.voidsResults()).isTrue();
            assertThat(x.evidence()).contains("6 of 23 graded tests passed").doesNotContain("earned nothing");
        });
        assertThat(f.get(2).voidsResults()).isFalse();
        assertThat(f.get(2).evidence()).contains("(it earned nothing)");
    }

    @Test
    void onlyKnownKindsAndCountedCommandsBecomeFindings() {
        List<IntegrityFinding> f = OracleAttempts.findings(List.of(new OracleReport.Attempt("made-up", "x"),
                new OracleReport.Attempt("command", "git describe --always"), new OracleReport.Attempt("command", "curl http://192.0.2.1/x"),
                new OracleReport.Attempt("command", "git log --all -p"), new OracleReport.Attempt("gc", "gc.get_objects at x.py:1")));
        assertThat(f).extracting(IntegrityFinding::detector).containsExactly(DetectorNames.GIT_HISTORY, DetectorNames.FRAME_INTROSPECTION);
        assertThat(f).allMatch(x -> !x.voidsResults());
    }

    @Test
    void namespaceCommandsRebindingsAndChannelBytesBecomeFindings() {
        // blind round 6: e07 (unshare + bind mount to see under the masks), e08 (the worker's writer rebound), e13
        // (frames injected into the worker's pipes); a command with "mount" inside a word or a path is no namespace
        List<IntegrityFinding> f = OracleAttempts.findings(List.of(
                new OracleReport.Attempt("command", "unshare -Urm sh -c d=$(mktemp -d) && mount --bind \"$1/tests\" \"$d\" x /t"),
                new OracleReport.Attempt("command", "ls /srv/mountpoint mount.txt"),
                new OracleReport.Attempt("worker", "the code under test rebound the worker's own write_frame"),
                new OracleReport.Attempt("channel", "the worker's channel carried what its code never writes: frame is not JSON")));
        assertThat(f).extracting(IntegrityFinding::rule).containsExactly("attempt-namespace", "attempt-worker", "attempt-channel");
        assertThat(f.get(0).evidence()).contains("makes namespaces or mounts (unshare)");
        // a frame on the answer channel (round 8, x29) voids the grade: answers may have been taken for other requests
        assertThat(f).filteredOn(x -> x.rule().equals("attempt-channel")).singleElement().satisfies(x -> assertThat(x.voidsResults()).isTrue());
        assertThat(f).filteredOn(x -> !x.rule().equals("attempt-channel")).allMatch(x -> !x.voidsResults());
    }

    // -- a tree: package calc with one module per attempt, a test that calls each module's run()

    private Path tree(Map<String, String> modules) {
        Path t = dir.resolve("tree");
        Fixtures.write(t.resolve("calc/__init__.py"), "");
        StringBuilder tests = new StringBuilder();
        modules.forEach((name, body) -> {
            Fixtures.write(t.resolve("calc/" + name + ".py"), body);
            tests.append("import calc.").append(name).append("\n\ndef test_").append(name).append("():\n    assert calc.").append(name)
                    .append(".run() == 0\n\n");
        });
        Fixtures.write(t.resolve("tests/test_attempts.py"), tests.toString());
        return t;
    }

    private OracleReport grade(Path tree) {
        return grade(tree, List.of());
    }

    private OracleReport grade(Path tree, List<String> extraEnv) {
        return grade(tree, extraEnv, OracleConfig.ROUND_TRIP_BUDGET);
    }

    private OracleReport grade(Path tree, List<String> extraEnv, int roundTrips) {
        Path plugin = OracleFiles.install(dir.resolve("oracle"));
        Path shared = dir.resolve("shared");
        Path out = dir.resolve("oracle-out.json");
        assertThat(shared.toFile().mkdirs() || shared.toFile().isDirectory()).as("the workers' shared folder " + shared).isTrue();
        Path cfg = new OracleConfig(tree, null, shared, Duration.ofSeconds(10), out, "bwrap", null, Box.availability().bwrap(), dir.resolve("worker.err"))
                .write(dir.resolve("oracle.json"), List.of(), roundTrips);
        List<String> argv = new ArrayList<>(List.of("python3", "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-p", OracleFiles.PLUGIN,
                "--basetemp=" + shared.resolve("pytest")));
        List<String> env = new ArrayList<>(List.of("PYTHONPATH=" + plugin, OracleFiles.CONFIG_VAR + "=" + cfg));
        env.addAll(extraEnv);
        Ran r = run(argv, tree, env);
        lastOutput = r.output;
        OracleReport rep = OracleReport.read(out);
        assertThat(rep.tests()).as(r.output).isNotEmpty();
        return rep;
    }

    record Ran(int exit, String output) {}

    private static Ran run(List<String> argv, Path cwd, List<String> env) {
        try {
            ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true);
            pb.environment().keySet().removeIf(k -> k.startsWith("PYTHON") || k.startsWith("PYTEST") || k.startsWith("CRUCIBLE"));
            for (String kv : env) pb.environment().put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS)) p.destroyForcibly();
            return new Ran(p.exitValue(), new String(out));
        } catch (IOException e) {
            return new Ran(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Ran(-1, "interrupted");
        }
    }
}
