# The worker's call frame, watched (part of oracle_audit, split for size; it follows oracle_audit.py in the worker's
# source, which is oracle_wire + oracle_audit + this + oracle_worker): the tree reading its caller's locals or globals is
# seen, and the path-like strings the trusted side passes are kept, so that a hidden test data file the test handed to
# the tree is no attempt when the tree reads it (see _Audit.named_by_call).


class _Caller(dict):
    """The locals of the frame that calls the tree (an eval frame, so that frame.f_locals IS this mapping): while the
    call runs nothing but the tree, or a library it called, can read them: a walk to its caller's locals (f_back, then
    f_locals: neither raises an audit event) is seen here. Empty: there is nothing in it to find."""
    armed, what = False, "locals"

    def _seen(self, how):
        if _Caller.armed and not AUDIT.busy and self._reader_counts():
            _Caller.armed = False  # once per call is enough
            AUDIT.add("frame", "the tree read the %s of the frame that called it (%s) at %s" % (self.what, how, AUDIT.where(3)))

    def _reader_counts(self):
        return True


def _watched(name, how):
    def f(self, *a):
        self._seen(how(a) if callable(how) else how)
        return getattr(dict, name)(self, *a)
    f.__name__ = name
    return f


for _n, _how in (("__getitem__", lambda a: "[%r]" % (a[0],)), ("get", lambda a: "get(%r)" % (a[0],)), ("__contains__", "in"),
                 ("__iter__", "iteration"), ("keys", "keys()"), ("values", "values()"), ("items", "items()")):
    setattr(_Caller, _n, _watched(_n, _how))


class _CallerGlobals(_Caller):
    """The call frame's globals (frame.f_globals raises no audit event either): the tree searching them is seen; a look-up by
    one name (`f_globals.get("__name__")` as namedtuple does, a caller's setting) finds only what it names, no search."""
    what = "globals"

    # the caller's identity (its module's file, spec, loader) asked by one name: no search, and honest code (a
    # resource next to its caller's file) does it too; recorded as caller-identity, a finding only where the
    # cross-check was voided by the same tree's frame read (IsolatedVerdicts: blind round 13, x15)
    def __getitem__(self, k):
        _identity_read("f_globals[%r]" % (k,), k)
        return dict.__getitem__(self, k)

    def get(self, k, d=None):
        _identity_read("f_globals.get(%r)" % (k,), k)
        return dict.get(self, k, d)

    def __contains__(self, k):
        _identity_read("%r in f_globals" % (k,), k)
        return dict.__contains__(self, k)

    def _reader_counts(self):
        f = _a_sys._getframe(3)  # _reader_counts, _seen, the watched method, its caller
        return f is not None and not AUDIT.is_lib(f.f_code)


class _Call:
    __slots__ = ("f", "a", "kw")

    @property
    def k(self):
        _Caller.armed = True  # the call's own name lookups are done (k is loaded last): from here on, reads are the tree's
        return self.kw


_A_PATH_HELPERS = frozenset(("posixpath", "genericpath", "ntpath", "os", "pathlib", "fnmatch"))  # frozen or not
_A_IDENTITY = frozenset(("__file__", "__spec__", "__loader__", "__cached__", "__path__", "__package__"))


def _identity_read(how, key=None, depth=2):
    """The tree asked who calls it (the call frame's file name compared, its module's file looked up): recorded, once."""
    if (key is not None and key not in _A_IDENTITY) or AUDIT.busy or AUDIT.calling <= 0:
        return
    f = _a_sys._getframe(depth)  # _identity_read, the watched method, its caller (2)
    while f is not None and key is None and f.f_globals.get("__name__") in _A_PATH_HELPERS and AUDIT.is_lib(f.f_code):
        f = f.f_back  # os.path.basename(name).startswith("test_"): the tree's question, asked through a path helper
    if f is not None and not AUDIT.is_lib(f.f_code) and not AUDIT.is_worker(f):
        AUDIT.add("caller-identity", "the tree inspected its caller's identity (%s) at %s:%d" % (how, f.f_code.co_filename, f.f_lineno))


class _CallerName(str):
    """The call frame's co_filename: printing or formatting it is a trace (honest); comparing or searching it is asking
    whether the caller is a test or a -c string (x14), recorded as caller-identity."""


def _name_watched(n):
    real = getattr(str, n)

    def m(self, *a):
        _identity_read("co_filename.%s" % n)
        return real(self, *a)
    m.__name__ = n
    return m


for _n in ("startswith", "endswith", "find", "rfind", "index", "rindex", "split", "rsplit", "partition", "rpartition",
           "__eq__", "__ne__", "__contains__", "__getitem__", "lower", "upper", "casefold", "strip", "lstrip", "rstrip", "count"):
    setattr(_CallerName, _n, _name_watched(_n))
_CallerName.__hash__ = str.__hash__

_A_CALL_CODE = compile("_t.f(*_t.a, **_t.k)", "<oracle-call>", "eval").replace(co_filename=_CallerName("<oracle-call>"))
_A_CALL_GLOBALS = _CallerGlobals(__builtins__=__builtins__, __name__="oracle-call")


def audit_call(fn, args, kw):
    """fn(*args, **kw) from a frame whose locals are a _Caller: what a tree that walks to its caller reads is seen."""
    AUDIT.idle_cpu()  # what the tree's threads burned while the worker waited for this request (oracle_audit_probes)
    c = _Call()
    c.f, c.a, c.kw = fn, args, kw
    loc = _Caller()
    dict.__setitem__(loc, "_t", c)
    if len(AUDIT.given) < 4096:  # a test's data paths: hidden data handed over (above), or opened outside the tree (_handed)
        _given(args, kw, AUDIT.given, AUDIT.hidden_data, 4096 if AUDIT.hidden_data else 256)
    AUDIT.calling += 1  # sandbox tells count only while a call runs (oracle_audit_sandbox)
    try:
        return eval(_A_CALL_CODE, _A_CALL_GLOBALS, loc)
    finally:
        AUDIT.calling -= 1
        _Caller.armed = False


def _handed(audit, p):
    """Whether p, a path outside the tree, is one a call of the trusted side handed over (psf/black opens the
    tests/data/*.toml a test passes it, also as `--config=PATH`; flask the static folder under the root_path a test gave
    its app): exactly that path; or, not a masked test file, a file in a folder handed over, or directly in a folder
    above a handed path when the tree's own root has a file of that name (black walks up from its sources to the
    project's pyproject.toml and .gitignore: the grading tree's copies of files the tree holds itself), where that
    folder does not hold the tree (a test that hands over /tmp names nothing). What no call named stays an attempt."""
    root, d = audit.root or "/", _a_os.path.dirname(p)
    for g in audit.given:
        for h in (g, g.partition("=")[2]) if "=" in g else (g,):  # an option's value: --config=PATH
            if not h:
                continue
            q = _a_os.path.normpath(_a_os.path.join(_a_os.getcwd(), h))
            if q == p:
                return True
            holds = [f for f in (q, d) if f != "/" and (root == f or root.startswith(f + "/"))]
            above = q.startswith(d + "/") and _a_os.path.lexists(_a_os.path.join(root, _a_os.path.basename(p)))
            if not holds and (p.startswith(q + "/") or above) and not audit.masked(p):
                return True
    return False


def _given(args, kw, names, hidden, most=4096):
    """Adds the path-like strings a call's arguments hold (exact types: str, bytes and the pathlib paths the wire
    carries by value; a stand-in's class is never asked) to names: one with a '/' or a hidden file's name. Bounded:
    most values looked at per call."""
    bases = {r.rsplit("/", 1)[-1] for r in hidden}
    stack, n = [args, tuple(kw.values()) if type(kw) is dict else ()], 0
    while stack and n < most:
        x = stack.pop()
        n += 1
        t = type(x)
        if t is str or t is bytes or _is(t, "pathlib", "PosixPath") or _is(t, "pathlib", "PurePosixPath"):  # noqa: F821 (oracle_wire)
            try:
                v = x if t is str else _a_os.fsdecode(x) if t is bytes else str(x)
            except (TypeError, ValueError):
                continue
            if len(v) < 4096 and ("/" in v or v in bases):
                names.add(v)
        elif t in (list, tuple, set, frozenset):
            stack.extend(x)
        elif t is dict:
            stack.extend(x.keys())
            stack.extend(x.values())
