# How the oracle enters a Python process the grader did not start itself (issues 33 and 35): pytest reached through
# a wrapper (make, tox, a script, `VAR=... py.test`), loaded by `-p oracle_plugin` in PYTEST_ADDOPTS, and unittest
# run by the grader's shim. That process is the wrapper's: its interpreter is the one the wrapper chose, and code may
# have run in it before the plugin (a tree module shadowing one pytest imports, with the working folder first on
# sys.path under `python -m pytest`). The split holds only when the process is the grading interpreter and no line of
# the tree ran in it; otherwise the oracle stays out of it, and its tests are graded in-process by the reporter, each
# labelled with this refusal's reason (never silently isolated). Uses only sys and os (loaded at interpreter start).
import os
import sys


def _venv(python):
    return os.path.isfile(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(python))), "pyvenv.cfg"))


def _same_interpreter(mine, want):
    """The grading interpreter (the workers run it) or one beside it in the same bin folder (python3, python3.X). A
    virtual environment's python is a link to its base interpreter: the same file, another environment's packages."""
    if os.path.dirname(os.path.abspath(mine)) == os.path.dirname(os.path.abspath(want)):
        return True
    try:
        return os.path.samefile(mine, want) and not _venv(mine) and not _venv(want)
    except OSError:
        return False


def tree_code_loaded(tree, standin_type=None):
    """Modules of the code under test executed in this process (a file of the tree that is not trusted test code and
    was not imported as a stand-in): the split cannot hold for a process where the tree's code ran."""
    out = []
    for name, mod in list(sys.modules.items()):
        if standin_type is not None and isinstance(mod, standin_type):
            continue
        fn = getattr(mod, "__file__", None) if mod is not None else None
        if not isinstance(fn, str) or fn.startswith("<"):
            continue
        rel = tree.rel(fn)
        if rel is not None and not tree.is_trusted(rel):
            out.append("%s (%s)" % (name, rel))
    return sorted(out)


def refusal(cfg, tree):
    """Why this process cannot take the oracle (None: it can). Only for an entry the grader did not start itself
    (the configuration names the grading interpreter, "python"); the grader's own bootstrap is checked by its start."""
    want = cfg.get("python")
    if not want:
        return None
    if os.sep not in want:  # not found where the grader looked (a pod's grading container): the grading PATH, here
        import shutil
        want = shutil.which(want, path=cfg.get("python_path")) or want
    if not _same_interpreter(sys.executable, want):
        return ("the wrapper's pytest or unittest runs another interpreter (%s) than grading's (%s), whose packages the "
                "oracle's workers would not import" % (sys.executable, want))
    loaded = tree_code_loaded(tree)
    if loaded:
        return "the code under test ran in this process before the oracle could load: " + ", ".join(loaded[:5])
    for name in ("pytest", "_pytest", "pluggy", "unittest"):
        fn = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(fn, str) and tree.rel(fn) is not None:
            return "%s is imported from the tree under test (%s)" % (name, tree.rel(fn))
    return None


def record_refusal(cfg, why):
    """Adds `why` to the run's record (the configured "out" file, beside the earlier runs' records of one command)."""
    import json
    out = cfg.get("out")
    if not out:
        return
    try:
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        doc = {}
    if type(doc) is not dict:
        doc = {}
    refused = doc.get("refused") if isinstance(doc.get("refused"), list) else []
    if why not in refused and len(refused) < 20:
        refused.append(why)
    doc["refused"] = refused
    try:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
    except OSError as e:
        sys.stderr.write("isolated oracle: could not write its record %s: %s\n" % (out, e))


_RUNNER_VARS = frozenset(("PYTEST_CURRENT_TEST",))  # pytest's own, set for each phase of each test


class StateGuard:
    """Process state a test sets in the trusted process that the code under test, in its worker, never sees (found on
    psf/requests graded through `make ci`): variables (`monkeypatch.setenv("HTTP_PROXY", ...)`), the working folder, and
    a local server the test started (the worker has its own network namespace, so `localhost:PORT` refuses it). A call
    into the tree while one holds sends the test to in-process grading, named; it is the test's doing, never the tree's.
    Variables and the folder are carried to the worker all the same (oracle_env), but this rule stays for a wrapper's
    tests: measured on encode/httpx (its autouse fixture drops SSL_CERT_FILE for every test), dropping it made 977 of 1418
    tests isolated and 48 of them failed split for other reasons (httpcore objects the test compares with its own
    httpcore's, an answer the wire cannot carry): a test that sets variables is usually one that sets up a library."""

    def __init__(self, conn):
        import weakref
        self.conn, self.env, self.cwd, self.bound, self._weakref = conn, None, None, False, weakref.ref
        self.sockets = []  # weak references to sockets this process bound, and their ports once known
        self.ports = {}
        request = conn.request

        def guarded(msg):
            self.check(msg)
            return request(msg)
        conn.request = guarded
        sys.addaudithook(self._audit)

    def start(self):
        """At each test's start: what it changes from here on is its own."""
        self.env, self.cwd, self.bound = dict(os.environ), os.getcwd(), False

    def _audit(self, event, args):
        if event == "socket.bind" and args:
            try:
                self.sockets.append(self._weakref(args[0]))
            except TypeError:
                pass
            if self.conn.test is not None:
                self.bound = True

    def _local_ports(self):
        for ref in self.sockets:
            s = ref()
            if s is not None and ref not in self.ports:
                try:
                    if s.fileno() != -1:
                        name = s.getsockname()
                        if isinstance(name, tuple) and len(name) > 1 and isinstance(name[1], int) and name[1] > 0:
                            self.ports[ref] = name[1]
                except OSError:
                    pass
        return set(self.ports.values())

    def check(self, msg):
        rec = self.conn.test
        if rec is None or rec.needs or self.env is None:
            return
        why = None
        keys = [] if os.environ == self.env else sorted(
            k for k in set(self.env) | set(os.environ) if self.env.get(k) != os.environ.get(k) and k not in _RUNNER_VARS)
        if keys:
            why = "a test changes the environment (%s) while it calls the code under test (its worker has its own)" % ", ".join(keys[:3])
        elif os.getcwd() != self.cwd:
            why = "a test changes the working folder while it calls the code under test (its worker has its own)"
        elif self.bound:
            why = "a test serves on a local socket, which the code under test's worker cannot reach (its own network namespace)"
        elif self.sockets:
            text = repr(msg)
            hit = [p for p in self._local_ports() if ":%d" % p in text]
            if hit:
                why = "a test hands the code under test the address of a local server (port %d) its worker cannot reach" % hit[0]
        if why:
            rec.needs.append(why)


def guard_pytest(oracle):
    """The state guard for a wrapper's pytest: each test starts it (registered before pytest_configure registers the
    oracle, so pluggy takes this method)."""
    guard = StateGuard(oracle.conn)
    protocol = oracle.pytest_runtest_protocol

    def pytest_runtest_protocol(item, nextitem):
        got = protocol(item, nextitem)
        guard.start()
        return got
    oracle.pytest_runtest_protocol = pytest_runtest_protocol
    return guard


def guard_carrying(oracle, conn_mod, remote_mod):
    """What the split does not carry, for an entry's tests, each a named fallback instead of a failure (found on tomli
    and httpx): a test that makes an instance of the tree's exception class itself (the local mirror's plain init is
    not the tree's: tomli's TOMLDecodeError(msg, doc, pos) formats its args and warns), reads an attribute the mirror
    lacks (one its class computes: its args and instance attributes cross, oracle_excattrs), or uses the asynchronous protocols of the tree's objects (`async
    with`, `async for`, `await`: the worker's coroutines are not driven by the test's event loop)."""
    here = os.path.dirname(os.path.abspath(__file__))
    needs = conn_mod.NeedsInProcess
    mirrors = oracle.session.mirrors
    of = mirrors.of

    def guarded_of(names, base_name):
        cls = of(names, base_name)
        if "_oracle_entry_guard" not in cls.__dict__:
            init = cls.__init__
            name = getattr(cls, "_oracle_name", cls.__name__)

            def __init__(exc, *args, **kw):
                if os.path.dirname(os.path.abspath(sys._getframe(1).f_code.co_filename)) != here:
                    raise needs("a test makes an instance of %s, an exception class of the code under test, itself" % name)
                init(exc, *args, **kw)

            def __getattr__(exc, attr):
                if attr.startswith("__") or attr.startswith("_oracle") or oracle.conn.test is None:
                    raise AttributeError(attr)  # a runner's or library's probe (hasattr), or no test running
                raise needs("a test reads %s of %s, an exception of the code under test (only its args and instance attributes cross)" % (attr, name))
            cls.__init__ = __init__
            cls.__getattr__ = __getattr__
            cls._oracle_entry_guard = True
        return cls
    mirrors.of = guarded_of

    def asynchronous(what):
        def refuse(self, *args):
            raise needs("a test uses %s of an object of the code under test (its coroutines run in the worker)" % what)
        return refuse
    for attr, what in (("__aenter__", "async with"), ("__aexit__", "async with"), ("__aiter__", "async for"),
                       ("__anext__", "async for"), ("__await__", "await")):
        if not hasattr(remote_mod.Remote, attr):
            setattr(remote_mod.Remote, attr, asynchronous(what))
