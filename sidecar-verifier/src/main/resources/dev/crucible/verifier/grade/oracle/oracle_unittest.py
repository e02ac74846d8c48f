# The isolated oracle for unittest suites (issue 33 point 2): the grader's unittest shim (crucible_unittest.py) loads
# this before any test module is imported, in the process that runs the tests. The oracle's import hook then gives
# stand-in modules for the tree under test, so each test's assertions, expected values and verdict run in this trusted
# process and the code under test in a boxed worker, as for pytest (oracle_plugin). Per test (unittest's id) the
# record says isolated or needs-in-process with the reason; a test that needs in-process grading, or whose worker
# broke, fails here whatever it caught, and the grader takes its verdict from an in-process run of the same command.
# A test module whose import needs in-process grading (a TestCase subclass of the tree's class, a module-level patch
# of the tree) is recorded by module name: every test of it is graded in-process.
import os
import sys

_ENTRY = None


class Entry:
    def __init__(self, plugin):
        self.plugin = plugin
        self.oracle = plugin.ORACLE
        self.conn = self.oracle.conn
        self.loading = None  # the record of a module being imported (collection), or None
        self.streams = None  # sys.stdin/stdout/stderr as the running test started
        self.state = getattr(self.oracle, "state", None) or plugin.oracle_entry.StateGuard(self.conn)  # variables, folder, servers
        self._guard_calls()

    # -- what the split cannot carry, found where it happens (each sends the test to in-process grading, named)
    def _guard_calls(self):
        """A test that swaps sys.stdin/stdout/stderr (contextlib.redirect_stderr, a loaded stdin) and then calls the tree:
        the tree reads and writes its worker's own streams, so what the test captured or fed never reaches it."""
        request = self.conn.request

        def guarded(msg):
            rec = self.conn.test
            if rec is not None and self.streams is not None and not rec.needs:
                for name, was, now in zip(("stdin", "stdout", "stderr"), self.streams, (sys.stdin, sys.stdout, sys.stderr)):
                    if was is not now:
                        rec.needs.append("a test replaces sys.%s while it calls the code under test (its worker has its own)" % name)
                        break
            return request(msg)
        self.conn.request = guarded

    def error(self, test, err):
        """An answer the oracle's wire cannot carry (a value nested deeper than its limit: tomli's 470-deep arrays) is a
        limit of the split, not the tree's failure."""
        rec = self.conn.test
        exc = err[1] if isinstance(err, tuple) and len(err) > 1 else None
        if rec is not None and type(exc).__name__ == "WireError" and "nested deeper" in str(exc):
            rec.needs.append("the code under test's answer is nested deeper than the oracle's wire carries")

    # -- loading: a module whose import needs in-process grading sends all its tests there
    def importing(self, name, load):
        rec = self.plugin.TestRecord()
        outer, self.conn.test = self.conn.test, rec
        try:
            return load()
        except self.plugin.oracle_conn.NeedsInProcess as e:
            rec.needs.append(str(e) or "needs in-process grading")
            raise
        finally:
            self.conn.test = outer
            if rec.needs:
                self.oracle.modules[name] = rec.needs[0][:300]

    def script(self, path, run):
        """`python test.py`: the script's own top level (its imports, module-level patches) is its module's collection;
        its tests' ids start with __main__."""
        rec = self.plugin.TestRecord()
        self.loading, self.conn.test = rec, rec
        try:
            run()
        except self.plugin.oracle_conn.NeedsInProcess as e:
            if not rec.needs:
                rec.needs.append(str(e))
            raise
        finally:
            self._loaded()

    def _loaded(self):
        rec, self.loading = self.loading, None
        if rec is not None and rec.needs:
            self.oracle.modules["__main__"] = rec.needs[0][:300]
        if self.conn.test is rec:
            self.conn.test = None

    # -- each test, between unittest's startTest and stopTest
    def start(self, test):
        if self.loading is not None:
            self._loaded()
        self.conn.test = self.plugin.TestRecord()
        self.conn.nodeid = test.id()
        self.streams = (sys.stdin, sys.stdout, sys.stderr)
        self.state.start()

    def why_not(self, test):
        """Why this test's pass cannot stand here (None: it can): it needs in-process grading or its worker broke."""
        rec = self.conn.test
        if rec is None:
            return None
        if any(e.get("rule") == "remote-with-plain" for e in rec.events if isinstance(e, dict)):
            rec.needs.append("a test value was sent into the code under test's operators")
        why = ["needs in-process grading: " + n for n in rec.needs[:3]] + ["worker: " + b for b in rec.broken[:3]]
        return "isolated oracle: " + "; ".join(why) if why else None

    def stop(self, test):
        rec, self.conn.test, self.streams = self.conn.test, None, None
        if rec is None:
            return
        tid = test.id()
        was = self.oracle.results.get(tid)
        isolated = not rec.needs and (was is None or was["integrity"] == "isolated")
        self.oracle.results[tid] = {"integrity": "isolated" if isolated else "needs-in-process",
                                    "reasons": (rec.needs or (was or {}).get("reasons") or [])[:5], "broken": rec.broken[:5],
                                    "events": rec.events[:20]}

    def finish(self):
        self.oracle.pytest_sessionfinish(None, 0)


def install(config_path):
    """Loads the oracle from the folder of its configuration file; returns the entry, or None where this process
    cannot take it (oracle_entry's refusal, recorded in the record for the grader)."""
    global _ENTRY
    here = os.path.dirname(config_path)
    os.environ["CRUCIBLE_ORACLE_CONFIG"] = config_path
    sys.path.insert(0, here)
    try:
        import oracle_plugin
    finally:
        if here in sys.path:
            sys.path.remove(here)
    if oracle_plugin.ORACLE is None:
        return None
    _ENTRY = Entry(oracle_plugin)
    _hook_loader(_ENTRY)
    return _ENTRY


def _hook_loader(entry):
    import unittest
    import unittest.loader as L

    get = L.TestLoader._get_module_from_name  # discovery imports each test module here

    def get_module(self, name):
        return entry.importing(name, lambda: get(self, name))
    L.TestLoader._get_module_from_name = get_module

    by_name = L.TestLoader.loadTestsFromName  # `python -m unittest tests.test_x`

    def load_from_name(self, name, module=None):
        try:
            return entry.importing(name, lambda: by_name(self, name, module))
        except entry.plugin.oracle_conn.NeedsInProcess as e:
            return L._make_failed_test(name, e, self.suiteClass, str(e))[0]  # (suite, message), as unittest's own
    L.TestLoader.loadTestsFromName = load_from_name

    from_module = L.TestLoader.loadTestsFromModule
    standin = entry.plugin.oracle_hook.StandInModule

    def load_from_module(self, module, *args, pattern=None, **kw):
        # discovery imports every package on its way (the tree's own, as stand-ins) and looks for TestCases in it: a
        # module of the code under test holds none that may run here. One that discovery's pattern names (a test
        # module the grader did not name as its own) is the tree's code: its tests are graded in-process
        if isinstance(module, standin):
            import fnmatch
            fn = os.path.basename(str(object.__getattribute__(module, "__dict__").get("__file__") or ""))
            if fn and fnmatch.fnmatch(fn, pattern or "test*.py") and fn != "__init__.py":
                entry.oracle.modules[module.__name__] = "test cases in a module of the code under test (%s)" % fn
            return self.suiteClass()
        return from_module(self, module, *args, pattern=pattern, **kw)
    L.TestLoader.loadTestsFromModule = load_from_module
    del unittest
