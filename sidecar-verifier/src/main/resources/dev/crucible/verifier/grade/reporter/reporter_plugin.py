# ---------------------------------------------------------------------------------------------
# Test modules. A test module's globals (a table of cases, the parametrize marks on its functions) hold
# expected values, and reading them through sys.modules raises no audit event. So each test module, as
# soon as its first item is collected, gets a module class that reports an attribute read by the code
# under test (directly, or through library code such as inspect.getmembers or vars). Dunder names other
# than __dict__ pass: the import system and libraries scanning sys.modules read __name__, __file__, __spec__.

_ModuleType = type(sys)
_module_getattribute = _ModuleType.__getattribute__
_guarded_modules = {}


def _guarded_getattribute(self, name, _get=_module_getattribute):
    if (name == "__dict__" or not (name[:2] == "__" and name[-2:] == "__")) and not getattr(_guard, "busy", False):
        _guard.busy = True
        try:
            f = _tree_initiator()
            # finding an object by its own module and qualname is pickling by reference (toolz's curry reduces and
            # restores so), not reading a test's tables: a function, class or callable the test module defines
            # inspect.stack() hands a test frame's module __dict__ to linecache (a loader's source): a plain stack read
            if f is not None and f.f_code.co_name not in ("__reduce__", "__reduce_ex__") and not _own_definition(self, name, _get) \
                    and not _plain_stack_read(f):
                if _module_named_by_test(self, _get):
                    _finding("info", _where(f), "code under test read %s of the test module %s, which the running test handed "
                             "it by name (flask's config.from_object(__name__))" % (name, _get(self, "__name__")), "test-module-read-named")
                else:
                    _finding("high", _where(f), "code under test read %s of the test module %s (its case tables and marks hold "
                             "the expected values)" % (name, _get(self, "__name__")), "test-module-read")
        except Exception:
            pass
        finally:
            _guard.busy = False
    return _get(self, name)


def _module_named_by_test(module, _get):
    """Whether a running test function of this module named the module itself (__name__) for the code under test: a
    test that hands over its own module, as _test_named does its own file."""
    if _state["nodeid"] is None:
        return False
    try:
        ns = _get(module, "__dict__")
    except Exception:
        return False
    f = _getframe(2)
    while f is not None:
        if f.f_globals is ns and f.f_code.co_name != "<module>" and "__name__" in f.f_code.co_names:
            return True
        f = f.f_back
    return False


def _own_definition(module, name, _get):
    try:
        v = _get(module, name)
        if isinstance(v, (str, bytes, int, float, complex, list, tuple, dict, set, frozenset)) or not callable(v):
            return False
        q = getattr(v, "__qualname__", None)
        return getattr(v, "__module__", None) == _get(module, "__name__") and isinstance(q, str) and q.split(".")[0] == name
    except Exception:
        return False


class _GuardedTestModule(_ModuleType):
    __getattribute__ = _guarded_getattribute


def _guard_test_module(item):
    try:
        m = item.module
    except Exception:
        return
    fn = getattr(m, "__file__", None) if type(m) is _ModuleType else None
    if isinstance(fn, str) and _kind(fn) == "T" and id(m) not in _guarded_modules:
        _guarded_modules[id(m)] = m
        m.__class__ = _GuardedTestModule


def _check_test_modules(when):
    if _GuardedTestModule.__dict__.get("__getattribute__") is not _guarded_getattribute:
        _finding("critical", "crucible_reporter", "the guard on test modules was replaced (seen %s)" % when, "test-module-guard")
        _GuardedTestModule.__getattribute__ = _guarded_getattribute
    for m in list(_guarded_modules.values()):
        if type(m) is not _GuardedTestModule:
            _finding("critical", "crucible_reporter", "a test module's guard was taken off (seen %s)" % when, "test-module-guard")
            m.__class__ = _GuardedTestModule


# ---------------------------------------------------------------------------------------------
# The reporter itself. Its functions and tables live in this module's dictionary, which code under test
# can reach without any audited step (a plugin's method's __globals__): replacing _finding or emptying
# _HANDLERS would silence every check. What they were at import is kept here, in a closure; each report
# and the session end put back anything changed and say so (through the original _emit).

def _seal():
    g = globals()
    names = [n for n, v in g.items() if n.startswith("_") and not n.startswith("__") and (callable(v) or isinstance(v, (dict, set, frozenset, tuple, str, int, bool)))]
    names.append("ACTIVE")
    kept = tuple((n, g[n]) for n in names if n in g)
    handlers = tuple(_HANDLERS.items())
    emit, seen, state_keys = _emit, _seen_findings, tuple(sorted(_state))
    codes = tuple((v, v.__code__, v.__defaults__) for _, v in kept if isinstance(v, type(_seal)))

    def check(when):
        bad = [n for n, v in kept if g.get(n) is not v]
        for n, v in kept:
            g[n] = v
        if tuple(_HANDLERS.items()) != handlers:
            bad.append("_HANDLERS")
            _HANDLERS.clear()
            _HANDLERS.update(handlers)
        for fn, code, defaults in codes:
            if fn.__code__ is not code or fn.__defaults__ is not defaults:
                bad.append(fn.__name__ + ".__code__")
                fn.__code__, fn.__defaults__ = code, defaults
        if tuple(sorted(g["_state"])) != state_keys:
            bad.append("_state")
        if g["_seen_findings"] is not seen:
            bad.append("_seen_findings")
        if bad:
            emit("finding", detector="grader-tampering", severity="critical", path="crucible_reporter",
                 evidence="the grader's reporter was changed from inside the run (%s; seen %s)" % (", ".join(sorted(set(bad))[:12]), when),
                 check="reporter-tampered", nodeid=None)
    return check


_SELF_CHECK = _seal()


# ---------------------------------------------------------------------------------------------
# The pytest plugin. Its hooks hold the self check as a default argument (pluggy passes only the
# hook's own arguments), so no lookup in the module's dictionary stands between them and it.

class Reporter:
    def __init__(self):
        self.pm = None
        self.config = None
        self.counts = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config):
        self.config = config
        self.pm = config.pluginmanager
        self.hookexec = _func(getattr(self.pm, "_hookexec", None))
        self.inner = getattr(self.pm, "_inner_hookexec", None)

    def pytest_plugin_registered(self, plugin, manager):
        _check_plugin(plugin, "at registration")

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session, _self_check=_SELF_CHECK):
        t0 = _perf()
        _self_check("after collection")
        _check_surface("after collection")  # collection imported the code under test: a patch of the rewriter shows here
        _check_equality("after collection", True)
        _check_signal_handlers("after collection")
        _check_source_path("after collection")
        _COST["checks"] += _perf() - t0
        _emit("collected", count=len(session.items))

    def pytest_itemcollected(self, item):
        _guard_test_module(item)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectstart(self, collector):
        t0 = _perf()
        _check_source_path("before collecting %s" % (collector.nodeid or "the session"))
        _COST["checks"] += _perf() - t0

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report):
        # An import error in the code under test is an honest failure: say so on the channel, so the
        # session end's failed count (which includes it) agrees with what the channel saw.
        if report.failed:
            try:
                message = report.longreprtext[-_MAX_FIELD:]
            except Exception:
                message = None
            _emit("collecterror", nodeid=report.nodeid, message=message)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self, nodeid, location):
        _state["nodeid"] = nodeid

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self, nodeid, location):
        _state["nodeid"] = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report, _self_check=_SELF_CHECK):
        t0 = _perf()
        if report.when == "call":  # once per test: a change made in setup or teardown shows at the next one or at the end
            _self_check("at " + report.nodeid)
            _check_internals("at %s %s" % (report.nodeid, report.when), False)
            _check_equality("at " + report.nodeid, False)
            _check_signal_handlers("after " + report.nodeid)
            _check_test_modules("after " + report.nodeid)
        if self.pm is not None and (_func(getattr(self.pm, "_hookexec", None)) is not self.hookexec
                                    or getattr(self.pm, "_inner_hookexec", None) is not self.inner):
            _finding("critical", "pluginmanager", "the plugin manager's hook executor was replaced", "hook-caller-changed")
        _COST["checks"] += _perf() - t0
        wasxfail = hasattr(report, "wasxfail")
        message = None
        if report.outcome != "passed":
            try:
                message = report.longreprtext[-_MAX_FIELD:]
            except Exception:
                message = None
        outcome = report.outcome
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        _emit("test", nodeid=report.nodeid, when=report.when, outcome=outcome,
              duration=round(float(getattr(report, "duration", 0.0) or 0.0), 6), wasxfail=wasxfail, message=message)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_sessionfinish(self, session, exitstatus, _self_check=_SELF_CHECK):
        yield
        t0 = _perf()
        _self_check("at session end")
        _check_internals("at session end", True)
        _check_surface("at session end")
        if self.pm is not None:
            _check_hookimpls(self.pm, self.hookexec, "at session end")
        _check_grader_files("at session end")
        _check_equality("at session end", True)
        _check_signal_handlers("at session end")
        _check_source_path("at session end")
        _check_test_modules("at session end")
        _COST["checks"] += _perf() - t0
        stats = {}
        tr = self.pm.get_plugin("terminalreporter") if self.pm is not None else None
        if tr is not None:
            for key in ("passed", "failed", "error", "skipped", "xfailed", "xpassed"):
                stats[key] = len(tr.stats.get(key, ()))
        _state["ended"] = True
        _emit("end", t=time.time(), cost={k: round(v, 6) for k, v in _COST.items()}, exitstatus=int(session.exitstatus), testsfailed=int(session.testsfailed),
              testscollected=int(session.testscollected), stats=stats)


plugin = Reporter()


def pytest_addhooks(pluginmanager):
    """Loaded by name (`-p crucible_reporter` through PYTEST_ADDOPTS, for a command of another shape than
    `pytest ARGS`), the module is the plugin pytest registers: it registers the reporter object, at once,
    before any conftest is loaded. The grader's own bootstrap hands pytest the object and never the module."""
    if not pluginmanager.is_registered(plugin):
        pluginmanager.register(plugin, "crucible-reporter")


def finish(code):
    """Ends the graded interpreter after its session, without tearing every module down (pytest's and the
    stdlib's teardown was most of the "exit" phase). What code under test could still do at exit happens
    first, as it would: atexit callbacks run, then the modules of the grading tree are emptied and the
    collector runs, so their finalizers run; one that forces another exit status shows as the mismatch
    between that status and the session end already reported."""
    import atexit
    import gc
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for mod in list(sys.modules.values()):
        fn = getattr(mod, "__file__", None)
        if isinstance(fn, str) and not fn.startswith("<") and _kind(fn) in ("C", "T"):
            try:
                mod.__dict__.clear()
            except BaseException:
                pass
    try:
        gc.collect()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(int(code) if isinstance(code, int) else 1)

def oracle(config_path):
    """The isolated oracle's plugin (issue 33), loaded from the folder of its configuration file, after this
    reporter and before pytest reads any conftest or test module: its import hook then gives stand-in modules
    for the tree under test, whose code runs in a boxed worker, never in this process."""
    here = os.path.dirname(config_path)
    os.environ["CRUCIBLE_ORACLE_CONFIG"] = config_path
    sys.path.insert(0, here)
    try:
        import oracle_plugin
    finally:
        if here in sys.path:
            sys.path.remove(here)
    return oracle_plugin


def _drop_grader_path():
    """A run without the isolated oracle that took this reporter through the environment (the cross-check behind a
    wrapper, an in-process fallback): the grader's folders on PYTHONPATH have done their part (sitecustomize ran, this
    module is imported), and left on sys.path they tell the code under test it is graded (blind round 14, x11: correct
    only with a foreign folder on sys.path, and the cross-check had one). os.environ keeps them: a test's own pytest
    subprocess still loads the reporter."""
    if os.environ.get("CRUCIBLE_ORACLE_CONFIG"):
        return
    mine = {os.path.abspath(p) for p in os.environ.get("CRUCIBLE_GRADER_PYTHONPATH", "").split(":") if p}
    if mine:
        sys.path[:] = [p for p in sys.path if not p or os.path.abspath(p) not in mine]


_drop_grader_path()

if ACTIVE:
    _COST["import"] = _perf() - _T_SETUP
    _emit("start", t=_T_IMPORT, python=sys.version.split()[0], pytest=pytest.__version__, root=_ROOT)
    sys.addaudithook(_audit)
