# The isolated oracle's pytest plugin (trusted grading process). Importing it reads the configuration
# (CRUCIBLE_ORACLE_CONFIG, a JSON file the grader wrote) and installs the import hook before any conftest or
# test module is imported, so no module of the tree under test is ever executed in this process. Each
# test's verdict is then pytest's; a test whose worker broke fails; a test that needs in-process grading
# (NeedsInProcess, or a pass that sent a test's value into the tree's operators) fails here and is listed
# for the grader's in-process fallback run. The per-test record is written to the configured "out" file.
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# loaded by a wrapper's `python -m pytest` (oracle_entry), the working folder (the tree) is first on sys.path: the
# oracle's own imports (and the stdlib modules they import) must not find a module of it
_PATH, sys.path[:] = sys.path[:], [HERE] + [p for p in sys.path if p and p != os.getcwd()]

import oracle_children  # noqa: E402
import oracle_conn  # noqa: E402
import oracle_dataclasses  # noqa: E402
import oracle_datawatch  # noqa: E402
import oracle_entry  # noqa: E402
import oracle_env  # noqa: E402
import oracle_hook  # noqa: E402
import oracle_launch  # noqa: E402
import oracle_libexc  # noqa: E402
import oracle_patches  # noqa: E402
import oracle_remote  # noqa: E402
import oracle_special  # noqa: E402
import oracle_syspath  # noqa: E402

sys.path[:] = _PATH


def _grader_dirs():
    """The grader's own folders (this one, the reporter's on CRUCIBLE_GRADER_PYTHONPATH), as real paths."""
    grader = {os.path.realpath(g) for g in os.environ.get("CRUCIBLE_GRADER_PYTHONPATH", "").split(os.pathsep) if g}
    grader.add(os.path.realpath(HERE))
    return grader


class TestRecord:
    __slots__ = ("events", "needs", "broken")

    def __init__(self):
        self.events, self.needs, self.broken = [], [], []


def _import_system_loads_bytecode():
    """Whether the marshal.loads being audited was called by importlib's loader of cached byte code."""
    f = sys._getframe(1)
    for _ in range(3):  # this hook, then the Python caller of marshal.loads (C functions have no frame)
        if f is None:
            return False
        code = f.f_code
        if code.co_name == "_compile_bytecode" and "importlib._bootstrap_external" in code.co_filename:
            return True
        f = f.f_back
    return False


_SPAWNS = frozenset(("subprocess.Popen", "os.posix_spawn", "os.system", "os.exec", "os.fork", "os.forkpty"))


class Oracle:
    def __init__(self, cfg):
        self.cfg = cfg
        self.tree = oracle_hook.Tree(cfg["root"], cfg.get("trusted"))
        kind = cfg.get("launcher", {}).get("kind", "bwrap")
        launch = (oracle_launch.fifo_launcher(cfg["launcher"]) if kind == "fifo"
                  else oracle_launch.bwrap_launcher(dict(cfg.get("launcher", {}), shared_tmp=cfg.get("shared_tmp")), self.tree))
        self.conn = oracle_conn.Conn(launch, self._init, float(cfg.get("timeout", 60)))
        budget = cfg.get("round_trips")
        self.conn.budget = budget if type(budget) is int and budget > 0 else None
        # the variables, folder and umask a test sets reach the code under test's worker (oracle_env)
        self.shown = cfg.get("shown") or self.tree.root  # where the workers see their copy of the tree (OracleWorkers)
        self.conn.sync = oracle_env.EnvSync(self.tree.root, cfg.get("shared_tmp"), self.shown)
        self.conn.sync.paths = oracle_syspath.PathSync(self.tree, self.shown, _grader_dirs())  # sys.path, test modules
        self.finder = oracle_hook.Finder(self.tree, None)
        self.finder.shown = self.shown
        library = oracle_libexc.finder(self.tree.root, _grader_dirs(), oracle_hook.StandInModule)  # a library's exception: its own class
        self.session = oracle_remote.Session(self.conn, oracle_conn.Mirrors(library), self.finder.standin_for)
        self.session.scratch, self.session.tree, self.session.shown = cfg.get("shared_tmp"), self.tree, self.shown
        self.finder.session = self.session
        self.results = {}
        self.modules = {}  # test files whose collection needed in-process grading: all their tests fall back
        _orig_init = oracle_conn.NeedsInProcess.__init__
        conn = self.conn

        def needs_init(exc, *args):  # recorded where it is raised: a test cannot swallow it away
            _orig_init(exc, *args)
            if conn.test is not None:
                conn.test.needs.append(str(args[0]) if args else "needs in-process grading")
            else:
                self._conftest_needs(str(args[0]) if args else "")
        oracle_conn.NeedsInProcess.__init__ = needs_init
        hidden = cfg.get("hidden_data") or [r for r in os.environ.get("CRUCIBLE_ORACLE_HIDDEN", "").split("\n") if r]
        self.watch = oracle_datawatch.DataWatch(self.tree.root, hidden) if hidden else None
        self.session.hidden = {os.path.normpath(h) for h in hidden}  # the worker's reads of these are watched
        if self.watch is not None and self.watch.fd >= 0:
            self.conn.watch = self.watch  # before any test module reads its data here (counted as this process's own)
        sys.meta_path.insert(0, self.finder)
        sys.addaudithook(self._audit)
        oracle_special.install(self)  # what the code under test left where a test reads: no FIFO, device or link to the answers
        _doctests_of_the_tree_need_in_process()
        # a process a test starts runs in a box of its own, where the workers run (oracle_children)
        oracle_children.install(oracle_children.Children(cfg, self.tree, self.shown, _grader_dirs(), self._needs_here,
                                                         lambda: self.conn.starting))
        self.patches = oracle_patches.install(self)  # a test's patch of a module or class the worker has its own copy of
        oracle_dataclasses.install(self.session, (oracle_remote.Remote, oracle_remote.ValueRef))

    def _needs_here(self, why):
        if self.conn.test is not None:
            self.conn.test.needs.append(why)

    # a conftest's own reasons for in-process grading that no answer of the tree chooses: a class statement of the test's
    # on a class of the tree (a reference, whatever the tree answers for it), an instance of its exception made here
    _CONFTEST_REASONS = ("a test subclasses ", "a test makes an instance of ")

    def _conftest_needs(self, why):
        """NeedsInProcess while a trusted conftest.py is imported (marshmallow's tests/conftest.py imports tests/base.py,
        whose `class Uppercased(fields.Field)` subclasses the tree's class): the conftest cannot load here, and pytest loses
        every test under it. Its folder's tests are graded in-process instead, the conftest named as their reason
        (OracleReport#fallsBack), never silently isolated. Only for a reason the test's own code decides (above): one the
        tree's answers steer (a round-trip budget, a copy of what it answered as a reference) would let the tree send a
        whole folder to in-process grading; those stay a failure here, as before."""
        if not why.startswith(self._CONFTEST_REASONS):
            return
        f = sys._getframe(2)
        while f is not None:  # the innermost conftest being imported (module-level code) under the tree
            code = f.f_code
            if code.co_name == "<module>" and os.path.basename(code.co_filename) == "conftest.py":
                rel = self.tree.rel(code.co_filename)
                if rel is not None and self.tree.is_trusted(rel) and rel not in self.modules:
                    self.modules[rel] = ("its conftest cannot load in the grading process: %s" % why)[:300]
                    import atexit  # an initial conftest's failure ends pytest before its session (no sessionfinish)
                    atexit.register(self._write_record)
                return
            f = f.f_back

    def _init(self):
        # the worker imports from the same folders as this process, as the worker sees them: the tree's at its copy's place,
        # never the grader's own folders (this one, the reporter's on CRUCIBLE_GRADER_PYTHONPATH): the worker needs none
        # of them, and honest code that walks sys.path (importlib.metadata.version, entry_points: pallets/flask and click
        # at HEAD) listed them and was an attempt-outside on a no-op baseline
        return {"path": self.conn.sync.paths.view(), "cwd": self.shown}

    def _audit(self, event, args):
        if event == "open" and self.conn.watch is not None and args:
            self.conn.watch.opened_here(args[0])  # this process's own reads of the hidden data: the rest are another's
            return
        if event in _SPAWNS and self.conn.watch is not None and not self.conn.starting:
            self.conn.watch.spawned_here(self.conn.nodeid, args)  # a child of the test's, the paths it was given
        # a test that turns the tree's bytes into code here (pickle, marshal) would run the tree in this process;
        # the import system's own loading of a cached .pyc is not that (the tree's modules never load here: they are
        # stand-ins), and counting it sent every test that imports lazily to in-process grading
        if event == "marshal.loads" and _import_system_loads_bytecode():
            return
        if event in ("pickle.find_class", "marshal.loads") and self.conn.test is not None:
            self.conn.test.needs.append("the test unpickles or unmarshals data in the grading process (%s)" % event)

    # -- pytest hooks (registered as this object's methods)
    def pytest_make_parametrize_id(self, config, val, argname):
        """An Enum member of the tree as a parameter is named as in-process (oracle_wire.enum_id): the fallback run finds
        the test by the same id."""
        ref = val._o_ref if isinstance(val, oracle_remote.ValueRef) else val
        got = ref._o_info.get("en") if isinstance(ref, oracle_remote.Remote) else None
        cls, member = got.split(".", 1) if type(got) is str and got.count(".") == 1 else ("", "")
        # only "Class.member" of the reference's own class: the worker's word names no other test
        return got if cls.isidentifier() and member.isidentifier() and str(ref._o_info.get("n")).rpartition(".")[2] == cls else None

    def pytest_runtest_protocol(self, item, nextitem):
        self.conn.test = TestRecord()
        self.conn.nodeid = item.nodeid
        self.conn.start_test()
        return None

    def pytest_runtest_call(self, item):
        # pytest makes its temporary folders 0700; the worker (another uid in its own box) must read and write the
        # test's tmp_path, which lies in the shared scratch folder: open the chain below that folder to it
        shared = self.cfg.get("shared_tmp")
        funcargs = getattr(item, "funcargs", {}) or {}
        for name in ("tmp_path", "tmpdir"):
            p = funcargs.get(name)
            if shared and p is not None:
                p = os.path.realpath(str(p))
                while p.startswith(os.path.realpath(shared) + os.sep):
                    try:
                        os.chmod(p, 0o777)
                    except OSError:
                        break
                    p = os.path.dirname(p)

    def pytest_runtest_logfinish(self, nodeid, location):
        rec = self.conn.test
        self.conn.test = None
        if rec is None:
            return
        isolated = not rec.needs and not rec.broken
        self.results[nodeid] = {"integrity": "isolated" if not rec.needs else "needs-in-process",
                                "reasons": rec.needs[:5], "broken": rec.broken[:5], "events": rec.events[:20],
                                "trips": self.conn.trips}
        del isolated

    def pytest_collectstart(self, collector):
        # a test module's import runs its top-level code here: what it needs is recorded even if it catches it
        if str(getattr(collector, "path", "")).endswith(".py") and self.conn.test is None:
            self.conn.test = TestRecord()
            self.conn.start_test()
            self._collecting = collector.nodeid

    def _tree_doctests(self, collector):
        """--doctest-modules on a module of the tree: its examples and their expected output are the tree's own
        text, and running them means running its code here. They cannot be graded split: the module's doctests
        are graded in-process (recorded by file, so the fallback run's doctest items of that file count), and none is
        collected here (a stand-in module has no docstrings to find)."""
        rel = self.tree.rel(str(collector.path))
        if rel is None or self.tree.is_trusted(rel):
            return False
        # every such module, not only those whose text holds '>>>': docstrings can come from elsewhere (toolz.curried)
        self.modules[collector.nodeid] = "doctests of the code under test's own module (its examples and expected output are its own text)"
        return True

    def pytest_collectreport(self, report):
        rec = None
        if getattr(self, "_collecting", None) == report.nodeid:
            rec, self.conn.test, self._collecting = self.conn.test, None, None
        if rec is not None and rec.needs:
            self.modules[report.nodeid] = rec.needs[0][:300]
        elif report.failed and "NeedsInProcess" in str(report.longrepr):
            line = [ln for ln in str(report.longrepr).splitlines() if "NeedsInProcess" in ln][-1:]
            self.modules[report.nodeid] = (line[0] if line else "needs in-process grading")[:300]

    def pytest_sessionfinish(self, session, exitstatus):
        self._lenient_equality()
        self._write_record()

    def _write_record(self):
        if getattr(self, "_written", False):
            return
        self._written = True
        self.conn.end()
        out = self.cfg.get("out")
        if out:
            doc = {"tests": self.results, "modules": self.modules, "worker": {"starts": self.conn.starts, "calls": self.conn.calls,
                                                     "budget": self.conn.budget,
                                                     "ended": self.conn.broken[:20], "start_wait_s": round(self.conn.start_wait, 4)},
                   "standins": sorted(self.finder.names), "attempts": self.conn.attempts.items}
            if self.watch is not None and self.watch.problem:
                doc["worker"]["dataWatch"] = self.watch.problem
            _merge_earlier(out, doc)
            try:
                with open(out, "w", encoding="utf-8") as f:
                    json.dump(doc, f, indent=1)
            except OSError as e:  # no record: the grader grades in-process instead
                sys.stderr.write("isolated oracle: could not write its record %s: %s\n" % (out, e))

    def _lenient_equality(self):
        """After the last verdict, asks the tree's own __eq__ about the plain values tests compared its objects with
        (the oracle said not equal): one that says equal claims a value it does not have, an attempt (eq-lenient).
        Only when no test is graded again in-process: the values a test expected then never reach a tree that is."""
        pairs, self.session.eq_plain = self.session.eq_plain, []
        if not pairs or self.modules or self.conn.proc is None or any(r["integrity"] != "isolated" for r in self.results.values()):
            return
        timeout, self.conn.timeout = self.conn.timeout, min(self.conn.timeout, 2.0)
        try:
            for ref, value in pairs:
                if ref._o_gen != self.conn.gen or self.conn.proc is None:
                    continue
                try:
                    said = self.session.op("eq", ref, value)
                except (Exception, oracle_conn.OracleBroken):
                    continue
                if said is True:
                    self.conn.attempts.add("eq-lenient", "%s == %.80r: its __eq__ says equal, its value is not"
                                           % (ref._o_info.get("n"), value))
        finally:
            self.conn.timeout = timeout


class _Wrapper:
    """makereport as a hook wrapper: the verdict of a test that needs in-process grading or whose worker
    broke is failed here, whatever the test body caught."""

    def __init__(self, oracle):
        self.oracle = oracle

    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        rep = outcome.get_result()
        rec = self.oracle.conn.test
        if rec is None:
            return
        if rep.passed and call.when == "call" and any(e["rule"] == "remote-with-plain" for e in rec.events):
            rec.needs.append("a test value was sent into the code under test's operators")
        why = (["needs in-process grading: " + n for n in rec.needs[:3]] + ["worker: " + b for b in rec.broken[:3]])
        if why and call.when == "call" and not rep.skipped:
            rep.outcome = "failed"
            rep.longrepr = "isolated oracle: " + "; ".join(why)


def _doctests_of_the_tree_need_in_process():
    """A test that runs the tree's doctests itself (doctest.testmod(toolz)): their examples and expected output are
    the tree's own text, run against its code; no part of that can run split."""
    import doctest
    find = doctest.DocTestFinder.find

    def guarded(self, obj, *args, **kw):
        module = kw.get("module", args[1] if len(args) > 1 else None)
        if any(isinstance(o, (oracle_hook.StandInModule, oracle_remote.Remote)) for o in (obj, module)):
            raise oracle_conn.NeedsInProcess("a test runs the doctests of the code under test (its own examples and expected output)")
        return find(self, obj, *args, **kw)
    doctest.DocTestFinder.find = guarded


def _merge_earlier(out, doc):
    """A command of several pytest lines runs this plugin once per line with one record file: an earlier line's
    record (written by this trusted process's predecessor, out of the worker's reach) is kept, so that its tests
    that need in-process grading are still graded there; a test id in both is isolated only if it was in both."""
    try:
        with open(out, encoding="utf-8") as f:
            old = json.load(f)
    except (OSError, ValueError):
        return
    if type(old) is not dict:
        return
    tests = dict(old.get("tests") or {})
    for k, v in doc["tests"].items():
        was = tests.get(k)
        tests[k] = v if not isinstance(was, dict) or was.get("integrity") == "isolated" else was
    doc["tests"] = tests
    doc["modules"] = dict(old.get("modules") or {}, **doc["modules"])
    w, ow = doc["worker"], old.get("worker") or {}
    for k in ("starts", "calls", "start_wait_s"):
        if isinstance(ow.get(k), (int, float)):
            w[k] = w[k] + ow[k]
    w["ended"] = (list(ow.get("ended") or []) + w["ended"])[:20]
    doc["attempts"] = list(old.get("attempts") or []) + list(doc["attempts"])
    doc["refused"] = list(old.get("refused") or [])[:20]  # a wrapper's other pytest runs that could not take the oracle


def _drop_tree_doctests(self, file_path, parent):
    outcome = yield
    got = outcome.get_result()
    if isinstance(got, list) and got:
        outcome.force_result([n for n in got if not (type(n).__name__ == "DoctestModule" and self.oracle._tree_doctests(n))])


_Wrapper.pytest_collect_file = _drop_tree_doctests


def _hookwrapper(fn):
    fn.hookwrapper = True
    return fn


_Wrapper.pytest_runtest_makereport = _hookwrapper(_Wrapper.pytest_runtest_makereport)
# pluggy reads hookwrapper from a marker attribute pytest sets through pytest.hookimpl; set it the same way
try:
    import pytest as _pytest
    _Wrapper.pytest_runtest_makereport = _pytest.hookimpl(hookwrapper=True)(_Wrapper.__dict__["pytest_runtest_makereport"])
    _Wrapper.pytest_collect_file = _pytest.hookimpl(hookwrapper=True)(_drop_tree_doctests)
except ImportError:
    pass

_cfg_path = os.environ.get("CRUCIBLE_ORACLE_CONFIG")
ORACLE = None
if _cfg_path:
    with open(_cfg_path, encoding="utf-8") as _f:
        _cfg = json.load(_f)
    os.environ.pop("CRUCIBLE_ORACLE_CONFIG", None)
    _refused = oracle_entry.refusal(_cfg, oracle_hook.Tree(_cfg["root"], _cfg.get("trusted")))
    if _refused:  # a wrapper's process that cannot hold the split: its tests are graded in-process, labelled why
        oracle_entry.record_refusal(_cfg, _refused)
    else:
        ORACLE = Oracle(_cfg)
        if _cfg.get("python"):  # an entry the grader did not start (oracle_entry): state a test sets is checked per call
            ORACLE.state = oracle_entry.guard_pytest(ORACLE)
            oracle_entry.guard_carrying(ORACLE, oracle_conn, oracle_remote)


def _tryfirst(fn):
    try:
        import pytest as _p
        return _p.hookimpl(tryfirst=True)(fn)
    except ImportError:
        return fn


@_tryfirst
def pytest_configure(config):
    # before pytest's tmpdir plugin reads it: tmp_path lies in the scratch folder the worker sees too
    shared = ORACLE.cfg.get("shared_tmp") if ORACLE is not None else None
    if shared and not config.option.basetemp:
        config.option.basetemp = os.path.join(shared, "pytest")
    if ORACLE is not None:
        config.pluginmanager.register(ORACLE, "crucible-oracle")
        config.pluginmanager.register(_Wrapper(ORACLE), "crucible-oracle-verdict")
        config.pluginmanager.register(ORACLE.patches, "crucible-oracle-patches")
