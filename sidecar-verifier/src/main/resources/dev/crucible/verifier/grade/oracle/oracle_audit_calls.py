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
    __getitem__, get, __contains__ = dict.__getitem__, dict.get, dict.__contains__

    def _reader_counts(self):
        f = _a_sys._getframe(3)  # _reader_counts, _seen, the watched method, its caller
        return f is not None and not AUDIT.is_lib(f.f_code)


class _Call:
    __slots__ = ("f", "a", "kw")

    @property
    def k(self):
        _Caller.armed = True  # the call's own name lookups are done (k is loaded last): from here on, reads are the tree's
        return self.kw


_A_CALL_CODE = compile("_t.f(*_t.a, **_t.k)", "<oracle-call>", "eval")
_A_CALL_GLOBALS = _CallerGlobals(__builtins__=__builtins__, __name__="oracle-call")


def audit_call(fn, args, kw):
    """fn(*args, **kw) from a frame whose locals are a _Caller: what a tree that walks to its caller reads is seen."""
    c = _Call()
    c.f, c.a, c.kw = fn, args, kw
    loc = _Caller()
    dict.__setitem__(loc, "_t", c)
    if AUDIT.hidden_data and len(AUDIT.given) < 4096:
        _given(args, kw, AUDIT.given, AUDIT.hidden_data)
    try:
        return eval(_A_CALL_CODE, _A_CALL_GLOBALS, loc)
    finally:
        _Caller.armed = False


def _given(args, kw, names, hidden):
    """Adds the path-like strings a call's arguments hold (exact types: str, bytes and the pathlib paths the wire
    carries by value; a stand-in's class is never asked) to names: one with a '/' or a hidden file's name. Bounded."""
    bases = {r.rsplit("/", 1)[-1] for r in hidden}
    stack, n = [args, tuple(kw.values()) if type(kw) is dict else ()], 0
    while stack and n < 4096:
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
