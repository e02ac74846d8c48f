# The isolated oracle's untrusted worker: it imports and runs the code under test and answers the
# trusted grading process's requests over a pipe pair (frames of oracle_wire, which is prepended to this
# file when the worker starts: python -I -c WIRE+WORKER). It holds nothing a test needs: no test file, no
# expected value, no channel, no grader state; everything it answers is the code under test's answer.
import builtins as _builtins
import io as _io
import operator as _operator
import os as _os
import struct as _struct
import sys as _sys

_VALUE_BASES = (int, float, complex, str, bytes, bytearray, tuple, list, dict, set, frozenset)
_OPS = {
    "len": len, "iter": iter, "next": next, "bool": bool, "repr": repr, "str": str, "contains": _operator.contains,
    "getitem": _operator.getitem, "setitem": _operator.setitem, "delitem": _operator.delitem, "neg": _operator.neg,
    "pos": _operator.pos, "abs": abs, "invert": _operator.invert, "index": _operator.index, "int": int, "float": float,
    "add": _operator.add, "sub": _operator.sub, "mul": _operator.mul, "truediv": _operator.truediv,
    "floordiv": _operator.floordiv, "mod": _operator.mod, "pow": pow, "matmul": _operator.matmul, "and": _operator.and_,
    "or": _operator.or_, "xor": _operator.xor, "lshift": _operator.lshift, "rshift": _operator.rshift,
    "lt": _operator.lt, "le": _operator.le, "gt": _operator.gt, "ge": _operator.ge, "divmod": divmod,
    "round": round, "format": format, "dir": dir, "enter": lambda o: type(o).__enter__(o),
    "exit": lambda o, t, v, tb: type(o).__exit__(o, t, v, tb), "eq": _operator.eq, "ne": _operator.ne,
    "issubclass": issubclass, "hash": hash,
}
MAX_TEXT = 1 << 20


class Worker:
    def __init__(self, rfd, wfd):
        self.rfd, self.wfd = rfd, wfd
        self.objs, self.ids, self.next_id = {}, {}, 1
        self.buf = b""
        self.env0 = dict(_os.environ)  # this worker's own start: what a variable the test stops setting goes back to
        self.env_seen = dict(_os.environ._data)  # the environment as last synced: a change since is the tree's
        self.paths = WorkerPath()  # noqa: F821 (oracle_syspath is prepended): sys.path and the test modules' names

    # -- references: every object that does not cross by value is kept here for the session
    def ref_of(self, v):
        rid = self.ids.get(id(v))
        if rid is None or self.objs.get(rid) is not v:
            rid = self.next_id
            self.next_id += 1
            self.objs[rid] = v
            self.ids[id(v)] = rid
        return ["r", rid, self.info(v)]

    def info(self, v):
        t = type(v)
        i = {"n": "%s.%s" % (getattr(t, "__module__", "?"), getattr(t, "__qualname__", "?")), "k": "obj", "cl": callable(v)}
        # the object's real type, never its __class__: a proxy that claims another class (werkzeug's LocalProxy says
        # dict; pallets/flask at HEAD) made dict.items(v) raise and its honest answer an attempt-wire
        if issubclass(t, type(_sys)):
            i["k"], i["n"] = "mod", v.__name__
        elif issubclass(t, type):
            i["k"] = "cls"
            i["n"] = "%s.%s" % (v.__module__, v.__qualname__)
            if issubclass(v, BaseException):
                i["k"] = "exc"
                i["eb"] = _builtin_base(v)
                i["mro"] = _tree_mro(v)
        else:
            for b in _VALUE_BASES:
                if issubclass(t, b):
                    i["bv"] = self.enc(_base_value(b, v))
                    i["vb"] = b.__name__
                    ov = _overrides(t, b)
                    if ov:
                        i["ov"] = ov  # the base's methods it defines again: called here, not the base's
                    if getattr(t, "__hash__", None) is not getattr(b, "__hash__", None):
                        i["hh"] = True  # its own __hash__ runs here when the test hashes it (it may cache, as in-process)
                    break
            else:
                if getattr(t, "__eq__", None) is object.__eq__:
                    i["ie"] = True  # no __eq__ of its own: equal only to itself, as in-process
                if (en := enum_id(v, t)) is not None:  # noqa: F821 (oracle_wire)
                    i["en"] = en  # an Enum member's pytest id
        return i

    def enc(self, v):
        return encode(v, self.ref_of)  # noqa: F821 (oracle_wire is prepended)

    def from_ref(self, tag):
        try:
            return self.objs[tag[1]]
        except (KeyError, IndexError, TypeError):
            raise WireError("no object %r here" % (tag[1:2],))  # noqa: F821

    def dec(self, x):
        return decode(x, self.from_ref)  # noqa: F821

    # -- requests
    def handle(self, m):
        op = m.get("op")
        if op == "call":  # the usual request first: a test's loop calls the tree thousands of times
            f = self.dec(m["o"])
            if m.get("name"):
                f = getattr(f, m["name"])
            return audit_call(f, [self.dec(a) for a in m["args"]], {k: self.dec(v) for k, v in m["kw"].items()})  # noqa: F821
        if op == "end":  # the trusted side's closing request (oracle_conn.Conn.end): only its answer
            return None
        if op == "init":
            self.paths.init(m["path"])
            if m.get("cwd"):  # the tree's root: the audit takes this first chdir as the root (the test's folder follows)
                _os.chdir(m["cwd"])
            return None
        if op == "imp":
            __import__(m["name"])
            return _sys.modules[m["name"]]
        if op == "get":
            return getattr(self.dec(m["o"]), m["name"])
        if op == "set":
            setattr(self.dec(m["o"]), m["name"], self.dec(m["v"]))
            return None
        if op == "del":
            delattr(self.dec(m["o"]), m["name"])
            return None
        if op == "isinst":
            return isinstance(self.dec(m["o"]), self.dec(m["c"]))
        if op == "state":
            return _state(self.dec(m["o"]))
        if op == "op":  # an operator runs the tree's code as a method does: in a call (what it makes is a call's)
            return audit_call(_OPS[m["name"]], [self.dec(a) for a in m["args"]], {})  # noqa: F821
        raise WireError("unknown op %r" % (op,))  # noqa: F821

    def serve(self):
        while True:
            m = self.read()
            if m is None:
                return
            r, live, before = None, None, ()
            q = m.get("q") if type(m) is dict else None  # echoed: the trusted side ties each answer to its request
            synced = type(m) is dict and ("env" in m or "wd" in m or "umask" in m or "sp" in m or "tm" in m)
            if synced and m.get("op") != "init":
                self.sync(m)
            try:
                args = m.get("args") if m.get("op") == "call" else None
                before = [(i, a) for i, a in enumerate(args or []) if isinstance(a, list) and a and a[0] in ("l", "d", "s", "ba")]
                if before:  # in-place changes of a mutable argument go back: they are part of the answer
                    live = [self.dec(a) for a in args]
                    m = dict(m, args=[self.ref_of(v) for v in live])
                r = self.handle(m)
                if synced and m.get("op") == "init":  # after init's chdir into the tree
                    self.sync(m)
                out = None
            except BaseException as e:  # noqa: B902 - everything the tree raises is an answer
                out = ["exc", q, self.exc_info(e)]
            if out is None:
                # encoding the answer is the wire's work, not the tree's: a failure there (a 6000-digit int's str(), a
                # value nested past the limit, a __class__ that raises) is "wire", which the trusted side turns into
                # OracleBroken, never an exception a test's pytest.raises could take for the tree's (blind round 10, x45)
                try:
                    mut = {}
                    for i, a in before:
                        e = self.enc(live[i])
                        if e != a:
                            mut[str(i)] = e
                    out = ["ok", q, self.enc(r)] + ([mut] if mut else [])
                except BaseException as e:  # noqa: B902
                    out = _wire_answer(q, e, r)
            try:
                if _WARNED:  # the warnings the tree issued during the call, issued again there (oracle_conn)
                    write_frame(self.write, ["warn", _WARNED[:100]])  # noqa: F821
                    del _WARNED[:]
                _TEXTS.clear()
                if _os.environ._data != self.env_seen or self.paths.moved():
                    write_frame(self.write, ["env", self.changed()])  # noqa: F821
                audit_frame(self.write)  # noqa: F821 (oracle_audit: what the tree tried, before the answer)
                write_frame(self.write, out)  # noqa: F821
            except BaseException as e:  # noqa: B902 - a frame over the limit: the answer cannot cross
                write_frame(self.write, _wire_answer(q, e, r))  # noqa: F821

    # -- the test's variables, folder and umask (oracle_env): applied before the request, as in-process they are shared
    def sync(self, m):
        for p in m.get("env") or ():
            if type(p) is list and len(p) == 2 and type(p[0]) is str:
                k, v = p
                if v == 0 and type(v) is int:  # the test no longer sets it: this worker's own value, or none
                    v = self.env0.get(k)
                try:
                    if v is None:
                        _os.environ.pop(k, None)
                    elif type(v) is str:
                        _os.environ[k] = v
                except (ValueError, OSError):
                    pass
        try:  # the trusted side sends only a folder this box shows (oracle_env): a failure is the tree's doing
            if type(m.get("wd")) is str:
                _os.chdir(m["wd"])
            if type(m.get("umask")) is int:
                _os.umask(m["umask"] & 0o777)
        except (OSError, ValueError, OverflowError):
            pass
        self.env_seen = dict(_os.environ._data)
        self.paths.apply(m)

    def changed(self):
        """What the tree changed in this process's environment since the last sync: the trusted side takes only its own."""
        now, seen = _os.environ._data, self.env_seen
        dec = _os.environ.decodekey
        out = [[dec(k), _os.environ.decodevalue(v)] for k, v in now.items() if seen.get(k) != v]
        out += [[dec(k), None] for k in seen if k not in now]
        self.env_seen = dict(now)
        return {"set": out[:200], "path": self.paths.changed()}

    def exc_info(self, e):
        t = type(e)
        args = []
        for a in getattr(e, "args", ()):
            try:
                args.append(encode(a, _not_plain))  # noqa: F821
            except Exception:
                args.append(_text(a))
        return {"eb": _builtin_base(t), "mro": _tree_mro(t), "args": args, "msg": _text(e)[:MAX_TEXT],
                "sc": getattr(e, "__suppress_context__", False) is True, "at": exc_attrs(e, self.enc)}  # noqa: F821 (oracle_excattrs)

    def read(self):
        head = self._read(4)
        if head is None:
            return None
        (n,) = _struct.unpack(">I", head)
        if n > MAX_FRAME:  # noqa: F821
            raise SystemExit(3)
        return parse_frame(self._read(n) or b"")  # noqa: F821

    def _read(self, n):
        buf = self.buf
        while len(buf) < n:
            chunk = _os.read(self.rfd, max(n - len(buf), 1 << 16))
            if not chunk:
                return None
            buf += chunk
        self.buf = buf[n:]
        return buf[:n]

    def write(self, data):
        while data:
            data = data[_os.write(self.wfd, data):]


_WARNED = []
# operators a value type may redefine (cachetools' hashed tuple adds to its own type): its answer, not the base's;
# and its ordering (blind round 8, h14: a NamedTuple Version ordered by a SemVer key, not as a plain tuple)
_ARITH_DUNDERS = frozenset("__%s%s__" % (p, n) for n in ("add", "sub", "mul", "mod", "truediv", "floordiv", "and", "or", "xor")
                           for p in ("", "r")) | frozenset(("__lt__", "__le__", "__gt__", "__ge__"))
_CONTAINER_DUNDERS = frozenset(("__contains__", "__len__", "__iter__", "__getitem__"))  # round 21, h08: a Span's own `in`


def _overrides(t, b):
    out = []
    for c in getattr(t, "__mro__", ()):
        if c is b:
            break
        for n in list(getattr(c, "__dict__", {}))[:200]:
            if type(n) is str and (n in _ARITH_DUNDERS or n in _CONTAINER_DUNDERS or not n.startswith("__") and hasattr(b, n)) and n not in out:
                out.append(n)
    return out[:50]


_FLOOD, _TEXTS = 1000, set()  # distinct warning texts in one call: a flood for the trusted side to re-issue, not a library's warning


def _keep_warning(message, category, filename, lineno, file=None, line=None):
    if len(_TEXTS) <= _FLOOD:  # blind round 11, x29: 2,000 distinct fake "PASSED" warnings a call, to time grading out
        _TEXTS.add(_text(message)[:200])
        if len(_TEXTS) > _FLOOD:
            AUDIT.add("exhaust", "the code under test issued more than %d distinct warnings in one call (%s:%s)"  # noqa: F821
                      % (_FLOOD, _text(filename)[:200], lineno))
    if len(_WARNED) < 100:
        _WARNED.append([_builtin_warning(category), _tree_mro(category), _text(message)[:4096], _text(filename)[:1024],
                        lineno if type(lineno) is int else 0])


def _builtin_warning(c):
    for b in getattr(c, "__mro__", ()):
        if b.__module__ == "builtins" and issubclass(b, Warning):
            return b.__name__
    return "UserWarning"


def _wire_answer(q, e, r):
    """An answer that cannot cross: why, and how deep it nests (the trusted side tells a deep value from a bomb by it)."""
    why = "%s: %s" % (type(e).__name__, _text(e)[:200])
    depth = _chain_depth(r) if isinstance(e, WireDepth) else 0  # noqa: F821 (only a depth failure has a depth)
    if depth > MAX_DEPTH:  # noqa: F821
        why += " (a value nested %d+ deep; the wire carries %d)" % (depth, MAX_GRAPH_DEPTH)  # noqa: F821
    return ["wire", q, why, depth]


def _chain_depth(v, cap=100000, visits=200000):  # called for an answer the encoder found too deep
    """How deep v nests, over every member (bounded), for the record of an answer the wire refused (oracle_wire._graph: a
    shortest path past MAX_GRAPH_DEPTH, a decoder bomb). A value that contains itself crosses as a graph; one refused
    anyway (a long chain behind it) counts at least just past the tree form's limit."""
    best, seen, stack = 0, set(), [(v, 1)]
    while stack and visits > 0 and best < cap:
        x, d = stack.pop()
        if type(x) not in (list, tuple, dict, set, frozenset) or not x or id(x) in seen:
            continue
        seen.add(id(x))
        visits -= 1
        best = max(best, d)
        stack.extend((m, d + 1) for m in (x.values() if type(x) is dict else x))
    return best if best > MAX_DEPTH else MAX_DEPTH + 1  # noqa: F821


def _not_plain(v):
    raise TypeError("not plain")


def _text(v):
    try:
        s = str(v)
        return s if type(s) is str else "?"
    except BaseException:
        return "<unprintable>"


def _builtin_base(t):
    for c in t.__mro__:
        if c.__module__ == "builtins" and issubclass(c, BaseException):
            return c.__name__
    return "Exception"


def _tree_mro(t):
    return ["%s:%s" % (c.__module__, c.__qualname__) for c in t.__mro__
            if c.__module__ != "builtins" and issubclass(c, BaseException)]


def _base_value(b, v):
    if b in (tuple, list, set, frozenset):
        return b(b.__iter__(v))
    if b is dict:
        return dict(dict.items(v))
    if b is complex:  # its stored parts: complex.__complex__ is 3.11's (the table below failed for every type on 3.10)
        return complex(complex.real.__get__(v), complex.imag.__get__(v))
    return {int: int.__int__, float: float.__float__, str: str.__str__, bytearray: bytes,
            bytes: lambda x: bytes.__getitem__(x, slice(None))}[b](v)


def _state(v):
    """What structural equality compares: the instance's fields (its __dict__ and slots)."""
    out = {}
    d = getattr(v, "__dict__", None)
    if isinstance(d, dict):
        out.update(d)
    for c in type(v).__mro__:
        for s in c.__dict__.get("__slots__", ()) if isinstance(c.__dict__.get("__slots__", ()), (tuple, list)) else ():
            if s not in ("__dict__", "__weakref__") and hasattr(v, s):
                out.setdefault(s, getattr(v, s))
    lazy = sorted({k for c in type(v).__mro__ for k, x in c.__dict__.items() if type(k) is str and type(x).__name__ ==
                   "cached_property" and type(x).__module__ == "functools"})  # filled on one object only: no difference
    return [type(v), {str(k): x for k, x in out.items()}, lazy[:64]]


def _tie_to_grader(fd):
    """stdin is a pipe whose other end only the grader (the CLI's JVM) holds: when it closes, even because the CLI was
    SIGKILLed, the worker ends, and its box with it (bwrap ends when its child does). bwrap's --die-with-parent misses a
    grader that died before bwrap set it (while its launcher ran) and follows the thread that started it, not the CLI.
    A thread of its own from before any of the tree's code: a tree that closes or replaces the descriptor leaves the
    blocked read on the pipe itself."""
    import _thread

    def watch():
        try:
            while _os.read(fd, 4096):
                pass
        except OSError:
            pass
        _os._exit(0)
    _thread.start_new_thread(watch, ())


def main():
    # the protocol keeps fds of its own; the tree's prints go to stderr and its reads of stdin see nothing
    if len(_sys.argv) == 4 and _sys.argv[3] == "--tied":
        _tie_to_grader(_os.dup(0))
        del _sys.argv[3]
    if len(_sys.argv) == 3:
        # the request and answer FIFOs, opened only now that the interpreter is up: a shell's redirect would block
        # its exec until the trusted side's first call, and the interpreter's start would not overlap pytest's
        rfd = _os.open(_sys.argv[1], _os.O_RDONLY)
        wfd = _os.open(_sys.argv[2], _os.O_WRONLY)
        del _sys.argv[1:]
    else:
        rfd, wfd = _os.dup(0), _os.dup(1)
    null = _os.open(_os.devnull, _os.O_RDONLY)
    _os.dup2(null, 0)
    _os.dup2(2, 1)
    _sys.stdout = _io.TextIOWrapper(_io.FileIO(1, "w", closefd=False), line_buffering=True)
    # every warning is kept and sent back: the trusted process's filters (pytest's, a test's pytest.warns) decide
    import warnings as _warnings
    _warnings.simplefilter("always")
    _warnings.showwarning = _keep_warning
    audit_install(globals())  # noqa: F821 (oracle_audit is prepended)
    Worker(rfd, wfd).serve()
    _os._exit(0)


if __name__ == "__main__":
    main()
