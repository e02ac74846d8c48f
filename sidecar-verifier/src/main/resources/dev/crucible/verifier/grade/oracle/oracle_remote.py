# Remote references: how an object of the code under test looks in the trusted grading process.
# Rules (also in the sidecar-verifier README, "The isolated oracle"):
#  - Equality is decided here, never by the tree's __eq__: a reference equals itself; a value-type
#    subclass (IntEnum, namedtuple, str subclass...) compares by its base value (sent as data); two other
#    references are equal when they are of the same class and their fields (__dict__, slots) are equal,
#    compared here; a reference against a plain int/float/str/bytes is the tree's __eq__, believed only when it
#    says unequal to decoys of that value and the object's own hash, projection or field holds the value (oracle_eq);
#    against pytest.approx, approx's verdict on the tree's float() (oracle_arith); against another plain value False (remote-eq-plain).
#  - hash: the base value's, else the class name's (consistent with the rule above).
#  - Ordering and arithmetic of a value-type subclass run here on its base value, but ordering against another tree
#    object where its class redefines it (a SemVer NamedTuple's __lt__: oracle_worker's "ov"). Else in the worker: with a trusted plain operand that sends a test's value to the tree, recorded (remote-with-plain),
#    and a test that passes after one is graded in-process instead; + - * / asked again with a decoy operand (oracle_arith).
#  - Truth, len, iteration, indexing, repr/str, attributes and calls are the tree's answer: forwarded.
#  - A trusted object that is not plain (a lambda, a mock, a test's own class) cannot be passed in, and a
#    remote class cannot be subclassed, pickled or copied here: NeedsInProcess (that test falls back).
import operator as _op
import weakref

import oracle_handed
from oracle_arith import approx_float, arith_probed, is_approx, note_steering, remember_answer
from oracle_conn import NeedsInProcess, OracleBroken, raise_remote
from oracle_eq import probe_of, same_fields, tree_equal
from oracle_lazy import LazyMethod, get_attr, real
from oracle_mirror import Classes, NewHere as _New, ValueRef, by_identity
from oracle_wire import WireError, decode, encode, is_plain as _is_plain

_ARITH = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift", "divmod"]
_PYOP = {"and": _op.and_, "or": _op.or_, "divmod": divmod, "pow": pow}
_ORDER = {"lt": _op.lt, "le": _op.le, "gt": _op.gt, "ge": _op.ge}


class Remote:
    __slots__ = ("_o_s", "_o_gen", "_o_rid", "_o_info", "__weakref__")
    # (per tree class, a subclass of the tree class's name with __doc__/__module__ forwarded: oracle_mirror.Classes)

    def __init__(self, session, gen, rid, info):
        object.__setattr__(self, "_o_s", session)
        object.__setattr__(self, "_o_gen", gen)
        object.__setattr__(self, "_o_rid", rid)
        object.__setattr__(self, "_o_info", info)

    # -- attributes and calls: the tree's answer
    def __getattr__(self, name):
        if name.startswith("_o_"):
            raise AttributeError(name)
        if name in ("__array_interface__", "__array_struct__", "__array__", "__fspath__", "_pytestfixturefunction"):
            raise AttributeError(name)  # library probes that must not turn a reference into something else
        return get_attr(self, name)  # a method read as a call's target costs no request of its own (oracle_lazy)

    def __setattr__(self, name, value):
        self._o_s.request({"op": "set", "o": self._o_s.tag(self), "name": name, "v": self._o_s.enc(value)})

    def __delattr__(self, name):
        self._o_s.request({"op": "del", "o": self._o_s.tag(self), "name": name})

    def __repr__(self):
        r = self._o_s.op("repr", self)
        return r if type(r) is str else "<remote %s>" % self._o_info.get("n")

    def __str__(self):
        r = self._o_s.op("str", self)
        return r if type(r) is str else "<remote %s>" % self._o_info.get("n")

    def __format__(self, spec):
        return self._o_s.op("format", self, spec)

    def __dir__(self):
        d = self._o_s.op("dir", self)
        return d if type(d) is list else []

    def __bool__(self):
        bv = self._o_info.get("bv_v", _NONE)
        return bool(bv) if bv is not _NONE else bool(self._o_s.op("bool", self) is True)

    def __len__(self):
        return self._o_s.op("len", self)

    def __iter__(self):
        return self._o_s.op("iter", self)

    def __next__(self):
        return self._o_s.op("next", self)

    def __getitem__(self, k):
        return self._o_s.op("getitem", self, k)

    def __setitem__(self, k, v):
        self._o_s.op("setitem", self, k, v)

    def __delitem__(self, k):
        self._o_s.op("delitem", self, k)

    def __contains__(self, k):
        return self._o_s.op("contains", self, k) is True

    def __enter__(self):
        return self._o_s.op("enter", self)

    def __exit__(self, t, v, tb):
        # a test's exception stays here: the tree's exit runs as for a clean exit and cannot swallow it
        self._o_s.op("exit", self, None, None, None)
        return False

    # __int__, __float__, __index__, __neg__, __pos__, __abs__, __invert__: below, local_or_remote as __round__

    def __round__(self, n=None):
        return self._o_s.local_or_remote("round", self, n)

    # -- equality and hashing: decided here
    def __eq__(self, other):
        return self._o_s.equal(self, other)

    def __ne__(self, other):
        return not self._o_s.equal(self, other)

    def __hash__(self):
        bv = self._o_info.get("bv_v", _NONE)
        return hash(bv) if bv is not _NONE else hash(("remote", self._o_info.get("n")))

    # -- types
    def __instancecheck__(self, obj):
        return self._o_s.request({"op": "isinst", "o": self._o_s.enc(obj), "c": self._o_s.tag(self)}) is True

    def __subclasscheck__(self, cls):
        if isinstance(cls, Remote):
            return self._o_s.op("issubclass", cls, self) is True
        return False

    def __mro_entries__(self, bases):
        raise NeedsInProcess("a test subclasses %s of the code under test" % self._o_info.get("n"))

    def __reduce_ex__(self, proto):
        raise NeedsInProcess("a test pickles %s of the code under test" % self._o_info.get("n"))

    def __copy__(self):
        raise NeedsInProcess("a test copies %s of the code under test" % self._o_info.get("n"))

    def __deepcopy__(self, memo):
        raise NeedsInProcess("a test copies %s of the code under test" % self._o_info.get("n"))


_NONE = object()


class CallableRemote(Remote):
    """A reference to a callable: only these are callable here, so callable(x) answers as in-process."""
    __slots__ = ()
    __new__ = _New()

    def __call__(self, *args, **kw):
        return self._o_s.call(self, None, args, kw)


def _order(name):
    def f(self, other):
        return self._o_s.order(name, self, other)
    f.__name__ = "__%s__" % name
    return f


def _unary(name):
    def f(self):
        return self._o_s.local_or_remote(name, self)
    f.__name__ = "__%s__" % name
    return f


def _arith(name, reflected):
    def f(self, other):
        return self._o_s.arith(name, other, self) if reflected else self._o_s.arith(name, self, other)
    f.__name__ = "__%s%s__" % ("r" if reflected else "", name)
    return f


for _n in _ORDER:
    setattr(Remote, "__%s__" % _n, _order(_n))
for _n in ("int", "float", "index", "neg", "pos", "abs", "invert"):
    setattr(Remote, "__%s__" % _n, _unary(_n))
for _n in _ARITH:
    _dn = {"and": "and", "or": "or"}.get(_n, _n)
    setattr(Remote, "__%s__" % _dn, _arith(_n, False))
    setattr(Remote, "__r%s__" % _dn, _arith(_n, True))


class Session:
    """Encodes calls to the worker and decodes its answers into plain values, references and mirrors."""

    def __init__(self, conn, mirrors, standin_for):
        self.conn, self.mirrors, self.standin_for = conn, mirrors, standin_for
        self.refs = weakref.WeakValueDictionary()  # (gen, rid) -> Remote: one proxy per object, so `is` holds
        self.values = {}  # (gen, rid) -> value mirror (an immutable value-type subclass: IntEnum, namedtuple, ...)
        self.classes = Classes(Remote, CallableRemote)
        conn.on_warn = self.warn
        self.eq_plain = []  # (reference, plain value) a test compared: asked of the tree's __eq__ after the last verdict
        self.methods, self.not_lazy = set(), set()  # (kind, class, name) read as a LazyMethod, or never (oracle_lazy)
        self.answered = {}  # a call target's tag -> the plain types it answered (steering: see forward)
        # what oracle_handed needs to open a test's open file where the worker sees it
        self.scratch, self.tree, self.shown, self.hidden, self.masked = None, None, None, set(), None
        self.handed = []  # the worker's copies of what tests handed over, held so the worker keeps them

    def record(self, rule, detail):
        if self.conn.test is not None:
            self.conn.test.events.append({"rule": rule, "detail": str(detail)[:200]})

    # -- encoding what the trusted side sends
    def tag(self, r):
        if r._o_gen != self.conn.gen:
            raise OracleBroken("isolated oracle: a reference of a worker that has ended (%s)" % r._o_info.get("n"))
        return ["r", r._o_rid]

    def _ref_of(self, v):
        if type(v) is LazyMethod:
            v = v._o_get()
        if isinstance(v, Remote):
            return self.tag(v)
        if isinstance(v, ValueRef):
            return self.tag(v._o_ref)
        rid = getattr(v, "_oracle_standin_rid", None) if type(v).__name__ == "StandInModule" else None
        if rid is not None:
            return ["r", self.standin_ref(v)]
        handed = oracle_handed.copy_in_worker(self, v)
        if handed is not None:
            return self.tag(handed)
        raise NeedsInProcess("a test passes a %s.%s to the code under test" % (type(v).__module__, type(v).__qualname__))

    def standin_ref(self, mod):
        got = mod._oracle_standin_rid
        if got is None or got[0] != self.conn.gen:
            ans = self.conn.request({"op": "imp", "name": mod.__name__})
            if ans[0] != "ok" or type(ans[1]) is not list or ans[1][:1] != ["r"]:
                self.finish(ans)
            object.__setattr__(mod, "_oracle_standin_rid", (self.conn.gen, ans[1][1]))
        return mod._oracle_standin_rid[1]

    def enc(self, v):
        return encode(v, self._ref_of)

    # -- decoding what the worker answers
    def _from_ref(self, tag):
        if len(tag) < 3 or type(tag[1]) is not int or type(tag[2]) is not dict:
            raise OracleBroken("isolated oracle: malformed reference %.80r" % (tag,))
        rid, info = tag[1], tag[2]
        kind = info.get("k")
        if kind == "mod" and isinstance(info.get("n"), str):
            m = self.standin_for(info["n"])
            if m is not None:
                object.__setattr__(m, "_oracle_standin_rid", (self.conn.gen, rid))
                return m
        if kind == "exc" and isinstance(info.get("eb"), str):
            return self.mirrors.of([n for n in info.get("mro", []) if isinstance(n, str)], info["eb"])
        key = (self.conn.gen, rid)
        m = self.values.get(key)
        if m is not None:
            return m
        r = self.refs.get(key)
        if r is None:
            if "bv" in info:
                info = dict(info, bv_v=decode(info["bv"], self._from_ref))
            r = self.classes.proxy(info.get("n"), info.get("cl") is True)(self, self.conn.gen, rid, info)
            self.refs[key] = r
            m = self.classes.value(r)
            if m is not None:
                self.values[key] = m  # kept: one mirror per object, so `is` holds (the worker keeps it too)
                return m
        return r

    def finish(self, ans, args=None):
        if ans[0] == "exc":
            self.conn.aborted(ans[1])
            raise_remote(ans[1], self._from_ref, self.mirrors)
        try:
            v = decode(ans[1], self._from_ref)
            if len(ans) == 3 and args is not None and type(ans[2]) is dict:
                for i, new in ans[2].items():  # the tree changed a list/dict/set argument in place
                    old = args[int(i)]
                    nv = decode(new, self._from_ref)
                    if type(old) is list:
                        old[:] = nv
                    elif type(old) in (dict, set, bytearray):
                        old.clear()
                        old.update(nv) if type(old) is not bytearray else old.extend(nv)
        except (WireError, ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError) as e:
            # never the decoder's own exception: a test's pytest.raises(ValueError) would take it for the tree's (x45)
            self.conn.wire_fail("the trusted side could not decode the worker's answer: %.200s" % (e,))
        return v

    def request(self, msg, args=None):
        return self.finish(self.conn.request(msg), args)

    def call(self, target, name, args, kw):
        enc_args = [self.enc(a) for a in args]
        enc_kw = {str(k): self.enc(v) for k, v in kw.items()}
        o = self.tag(target) if isinstance(target, Remote) else ["r", self.standin_ref(target)]
        msg = {"op": "call", "o": o, "name": name, "args": enc_args, "kw": enc_kw}
        return remember_answer(self, (self.conn.gen, str(o[1]), name), self.request(msg, list(args)), Remote)

    def op(self, name, *args):
        return self.request({"op": "op", "name": name, "args": [self.enc(a) for a in args]})

    # -- the rules
    def equal(self, a, b, depth=0):
        b = real(b)
        if a is b:
            return True
        abv = a._o_info.get("bv_v", _NONE)
        if isinstance(b, ValueRef):
            b = b._o_ref
        if isinstance(b, Remote):
            bbv = b._o_info.get("bv_v", _NONE)
            if abv is not _NONE or bbv is not _NONE:
                return abv is not _NONE and bbv is not _NONE and abv == bbv
            if depth > 50 or by_identity(a._o_info) or by_identity(b._o_info):
                return False  # classes, functions, modules, objects with no __eq__: equal only to themselves, as in-process
            sa, sb = self.conn.checked(lambda: (self.request({"op": "state", "o": self.tag(a)}),
                                                self.request({"op": "state", "o": self.tag(b)})))
            return sa[0] is sb[0] and same_fields(sa, sb)
        if abv is not _NONE:
            same = abv == b
            if same is False:
                self._keep_unequal(a, b)
            return same
        if not by_identity(a._o_info):
            said = approx_float(self, a, b) if is_approx(b) else self.conn.checked(
                lambda: tree_equal(lambda x: self.op("eq", a, x), a._o_info.get("n"), b, self._eq_found, probe_of(self, a)))
            if said is not None:
                return said
        self.record("remote-eq-plain", "%s compared with a %s" % (a._o_info.get("n"), type(b).__name__))
        self._keep_unequal(a, b)
        return False

    def _eq_found(self, kind, detail):  # oracle_eq's attempts (eq-lenient, eq-unbacked) and notes (info)
        self.conn.refused += 1  # a refused "equal": this test is not graded in-process past its budget (Conn.over_budget)
        self.record("eq-unbacked", detail) if kind == "info" else self.conn.attempts.add(kind, detail, self.conn.test)

    def _keep_unequal(self, a, b):
        # a few per class: after the last verdict the tree's own __eq__ is asked about them (oracle_plugin, eq-lenient)
        n = a._o_info.get("n")
        if len(self.eq_plain) < 16 and sum(1 for r, _ in self.eq_plain if r._o_info.get("n") == n) < 4 and _is_plain(b):
            self.eq_plain.append((a, b))

    def local_or_remote(self, name, a, *rest):
        bv = a._o_info.get("bv_v", _NONE)
        if bv is not _NONE:
            f = {"int": int, "float": float, "index": _op.index, "neg": _op.neg, "pos": _op.pos, "abs": abs,
                 "invert": _op.invert, "round": round}[name]
            return f(bv, *[x for x in rest if x is not None]) if name == "round" else f(bv)
        return self.op(name, a, *rest)

    def warn(self, warned):
        """Issues here the warnings the tree issued in the worker during a call: pytest.warns, recwarn and the
        run's filters see them as they would in-process (the tree's own Warning classes become mirrors)."""
        import warnings
        for w in warned:
            if type(w) is not list or len(w) != 5 or not all(type(x) is str for x in w[:1] + w[2:4]) or type(w[4]) is not int:
                continue
            names = [n for n in w[1] if isinstance(n, str)] if type(w[1]) is list else []
            base = getattr(__import__("builtins"), w[0], None)
            if not (isinstance(base, type) and issubclass(base, Warning)):
                base = UserWarning
            cat = self.mirrors.of(names, base.__name__) if names else base
            if not (isinstance(cat, type) and issubclass(cat, Warning)):
                cat = base
            warnings.warn_explicit(w[2], cat, w[3], w[4])

    def _local(self, v):
        v = real(v)
        if isinstance(v, ValueRef):
            return v._o_ref._o_info.get("bv_v", _NONE)
        if isinstance(v, Remote):
            return v._o_info.get("bv_v", _NONE)
        return v if _is_plain(v) else _NONE

    def order(self, name, a, b):
        la, lb = self._local(a), self._local(b)
        own = "__%s__" % name  # a value-type subclass defining it, against another tree object (mirrors: oracle_mirror)
        if la is not _NONE and lb is not _NONE and not (isinstance(b, Remote) and own in (a._o_info.get("ov") or ())):
            return _ORDER[name](la, lb)
        return self.forward(name, a, b)

    def arith(self, name, a, b):
        la, lb = self._local(a), self._local(b)
        if la is not _NONE and lb is not _NONE:
            return _PYOP.get(name, getattr(_op, name, None))(la, lb)
        return self.forward(name, a, b)

    def forward(self, name, a, b):
        for v, other in ((a, b), (b, a)):
            if not isinstance(real(v), Remote):
                self.record("remote-with-plain", "%s with a trusted %s" % (name, type(v).__name__))
                note_steering(self, name, v, real(other), Remote)
        return arith_probed(self, name, a, b, Remote)
