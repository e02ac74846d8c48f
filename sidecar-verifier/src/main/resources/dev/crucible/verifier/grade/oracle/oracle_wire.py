# The isolated oracle's wire format, shared by the trusted grading process and the untrusted worker.
# A frame is a 4-byte big-endian length and that many bytes of JSON. Values are tagged so that only
# exact plain types cross by value; anything else is a reference the sender keeps (see ref_of / from_ref).
# Plain: None, bool, int, float, str, bytes, complex and exact list/tuple/dict/set/frozenset of plain
# values, plus registered value types converted exactly (Decimal, Fraction, datetime/date/time/timedelta
# with no or fixed-offset zone, pure paths, numpy arrays and scalars when numpy is already imported).
import base64
import json
import json.encoder
import struct
import sys

if "ungraph" not in globals():  # the trusted side; in the worker's one source oracle_wire_graph comes first
    from oracle_wire_graph import ungraph

# The registered value types' modules (datetime, decimal, fractions, pathlib) are not imported here: a value of one
# exists only once its module is, so encode() looks them up in sys.modules, and decode() imports one when a value
# of it comes. The worker starts without them (pathlib alone is several ms); the trusted side imports them
# itself (oracle_conn) before the tree joins sys.path, so there they are the standard library's.

MAX_FRAME = 64 * 1024 * 1024  # a bigger frame is garbage: the reader fails the call
# A value nested within MAX_DEPTH crosses as a tree of tags (fast, recursive). One past it, or one that contains itself,
# crosses as a graph ("G": a flat table of nodes that name their members by index, so its JSON is shallow at any depth
# and a cycle or shared member is kept as such): the tree's answer shape never sends a test to in-process grading (blind
# round 13, x21/x22/x46: a self-containing or 600-deep answer only outside pytest made the oracle fall back in-process,
# where the fix was on). Only a value whose shortest path to some member is over MAX_GRAPH_DEPTH (a decoder bomb, round 7
# x14) or with over MAX_NODES members cannot cross: the call fails and it is a `wire` attempt.
MAX_DEPTH = 200
MAX_GRAPH_DEPTH = 1000
MAX_NODES = 1000000
# The most bits of an int the receiver takes (None: any). The trusted side sets the interpreter's own int/str digit limit
# (oracle_conn): a bigger answer could not even be printed by a test there, and blind round 10 (x10/x45) sent one to
# break the decoder; it is refused as garbage (a `wire` attempt). The worker takes any the trusted side sends.
MAX_INT_BITS = None


class WireError(Exception):
    """Bad frame or bad value: the peer is broken or lying about the format."""


class WireDepth(WireError):
    """A value nested past MAX_DEPTH (encode then sends it as a graph) or, as a graph, past MAX_GRAPH_DEPTH."""


def _frame_encoder():
    """JSON text of a frame. json.dumps builds a new encoder on every call (a third of a small call's cost), so the
    C encoder is made once; frames are trees that encode() built, so no cycle check. Checked against json.dumps,
    else json.dumps's own (an interpreter without the C encoder or with another signature)."""
    plain = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
    try:
        c = json.encoder.c_make_encoder(None, _no_default, json.encoder.encode_basestring_ascii, None, ":", ",",
                                        False, False, False)
        probe = {"a": [1, None, True, "\u00e9\n"], "b": {"c": -2 ** 60}}
        if "".join(c(probe, 0)) == plain(probe):
            return lambda obj: "".join(c(obj, 0))
    except Exception:  # noqa: BLE001 - any difference: the standard encoder
        pass
    return plain


def _no_default(v):
    raise TypeError("not JSON: %s" % type(v).__name__)


_ENCODE = _frame_encoder()
_HEADER = struct.Struct(">I").pack  # held here: the worker's tree can rebind struct.pack (blind round 11, x40)
_DECODE = json.JSONDecoder().raw_decode


def write_frame(fd_write, obj):
    data = _ENCODE(obj).encode("ascii")
    if len(data) > MAX_FRAME:
        raise WireError("frame of %d bytes is over the limit" % len(data))
    fd_write(_HEADER(len(data)) + data)


def parse_frame(data):
    # decoded text and raw_decode: json.loads(bytes) first guesses the encoding and builds a decoder per call
    try:
        text = data.decode("ascii")
        obj, end = _DECODE(text)
    except (ValueError, RecursionError) as e:
        raise WireError("frame is not JSON: %s" % e)
    if end != len(text):
        raise WireError("frame has %d bytes after its JSON" % (len(text) - end))
    return obj


def _mod(name):
    m = sys.modules.get(name)
    return m if m is not None else __import__(name)


def _is(t, module, name):
    # exact type of a registered module, which must already be imported
    m = sys.modules.get(module)
    return m is not None and t is getattr(m, name, None)


def _tz_ok(tz):
    return tz is None or type(tz) is sys.modules["datetime"].timezone


def _np():
    # numpy is used only when the process already imported it: the wire never imports it itself
    return sys.modules.get("numpy")


def encode(v, ref_of, depth=0):
    """The tagged JSON of v; ref_of(v) gives the tag of a value that does not cross by value. A value past the tree
    form's depth (or containing itself) is sent as a graph (_graph); ref_of is called again for its references, which
    gives the same tag (the worker's and the trusted side's ref_of keep one per object)."""
    try:
        return _enc(v, ref_of, depth)
    except WireDepth:
        return _graph(v, ref_of, depth)


_CONTAINERS = {list: "l", tuple: "t", dict: "d", set: "s", frozenset: "fs"}


def _graph(v, ref_of, base):
    """["G", 0, nodes]: node 0 is v; a container's node lists its members' node numbers (a dict's keys and values in
    turn), any other value's node is ["v", its tag]. Nodes are numbered in breadth-first order, so a node's depth is its
    shortest path from v; one object is one node (identity, sharing and cycles kept)."""
    nodes, objs, depths, index = [None], [v], [base], {id(v): 0}

    def num(x, d):
        i = index.get(id(x))  # objs holds every object numbered, so an id is never reused during the walk
        if i is None:
            if d > MAX_GRAPH_DEPTH:
                raise WireDepth("value nested deeper than %d" % MAX_GRAPH_DEPTH)
            if len(nodes) >= MAX_NODES:
                raise WireError("value of more than %d members" % MAX_NODES)
            i = index[id(x)] = len(nodes)
            nodes.append(None)
            objs.append(x)
            depths.append(d)
        return i
    k = 0
    while k < len(nodes):
        x, d = objs[k], depths[k] + 1
        tag = _CONTAINERS.get(type(x))
        if tag is None:
            nodes[k] = ["v", _enc(x, ref_of, 0)]  # not a container: a flat tag
        elif tag == "d":
            nodes[k] = ["d", [num(e, d) for kv in x.items() for e in kv]]
        else:
            nodes[k] = [tag, [num(e, d) for e in x]]
        k += 1
    return ["G", 0, nodes]


# str subclasses of the worker's own that cross as their text (filled in by the worker's audit; empty elsewhere)
STR_BY_VALUE = set()


def _enc(v, ref_of, depth):
    if depth > MAX_DEPTH:
        raise WireDepth("value nested deeper than %d" % MAX_DEPTH)
    t = type(v)
    if v is None or t is bool or t is str:
        return v
    if t in STR_BY_VALUE:  # a worker's own watched str (oracle_audit_sandbox's HOME): its text, as a plain str
        return str.__str__(v)
    if t is int:  # big ints as hex: exact at any size (str(int) refuses over 4300 digits, and so would int(text))
        return v if -(2 ** 53) < v < 2 ** 53 else ["i", hex(v)]
    if t is float:
        return ["f", v.hex()]
    d = depth + 1
    if t is list:
        return ["l", [_enc(x, ref_of, d) for x in v]]
    if t is tuple:
        return ["t", [_enc(x, ref_of, d) for x in v]]
    if t is dict:
        return ["d", [[_enc(k, ref_of, d), _enc(x, ref_of, d)] for k, x in v.items()]]
    if t is set:
        return ["s", [_enc(x, ref_of, d) for x in v]]
    if t is frozenset:
        return ["fs", [_enc(x, ref_of, d) for x in v]]
    if t is bytes:
        return ["b", base64.b64encode(v).decode()]
    if t is bytearray:
        return ["ba", base64.b64encode(bytes(v)).decode()]
    if t is complex:
        return ["c", v.real.hex(), v.imag.hex()]
    if t is slice:  # `seq[1:]` on the tree's sequence (blind round 21, h06): its bounds cross as values themselves do
        return ["sl", _enc(v.start, ref_of, d), _enc(v.stop, ref_of, d), _enc(v.step, ref_of, d)]
    if _is(t, "decimal", "Decimal"):
        return ["dec", str(v)]
    if _is(t, "fractions", "Fraction"):
        return ["fr", hex(v.numerator), hex(v.denominator)]
    if _is(t, "datetime", "datetime") and _tz_ok(v.tzinfo):
        return ["dt", v.isoformat(), v.fold]
    if _is(t, "datetime", "date"):
        return ["da", v.isoformat()]
    if _is(t, "datetime", "time") and _tz_ok(v.tzinfo):
        return ["ti", v.isoformat(), v.fold]
    if _is(t, "datetime", "timedelta"):
        return ["td", v.days, v.seconds, v.microseconds]
    if _is(t, "pathlib", "PurePosixPath") or _is(t, "pathlib", "PosixPath"):
        return ["p", str(v), t.__name__]
    np = _np()
    if np is not None:
        if t is np.ndarray and not v.dtype.hasobject and v.dtype.names is None:
            return ["np", v.dtype.str, list(v.shape), base64.b64encode(np.ascontiguousarray(v).tobytes()).decode()]
        if isinstance(v, np.generic) and t.__module__ == "numpy" and not v.dtype.hasobject:
            return ["nps", v.dtype.str, base64.b64encode(v.tobytes()).decode()]
    g = global_tag(v, t)
    return g if g is not None else ref_of(v)


# Objects that cross by name: the receiver takes its own object of that name, so identity holds across the boundary
# (`cache.choice is random.choice`) and a test may pass `len`, `int` or `operator.add` to the tree. Only names whose
# object does nothing but compute on its arguments (and builtin types): the trusted side must never be handed, by a
# tree that claims one of these names, a function that reaches files, processes or interpreter state.
_BUILTIN_FUNCS = frozenset("abs all any ascii bin callable chr divmod format hash hex id isinstance issubclass iter len max min "
                           "next oct ord pow repr round sorted sum".split())
_BUILTIN_TYPES = frozenset("bool int float complex str bytes bytearray tuple list dict set frozenset object range slice map filter "
                           "zip enumerate reversed memoryview".split())
_PURE_MODULES = frozenset(("operator", "_operator", "math", "random", "itertools", "string", "cmath"))
_FUNC_TYPES = ("builtin_function_or_method", "function", "method")


def global_tag(v, t):
    """["g", module, name] when v is the object of an allowed global name in this process, else None."""
    try:
        if t is type:
            if v.__module__ == "builtins":
                n = v.__name__
                if (n in _BUILTIN_TYPES or issubclass(v, BaseException)) and getattr(_builtins_mod(), n, None) is v:
                    return ["g", "builtins", n]
            return None
        if t.__module__ != "builtins" or t.__name__ not in _FUNC_TYPES:
            return None
        mod, n = v.__module__, v.__name__
        if type(mod) is not str or type(n) is not str:
            return None
        if mod == "builtins" and n not in _BUILTIN_FUNCS or mod != "builtins" and mod not in _PURE_MODULES:
            return None
        m = sys.modules.get(mod)
        if m is not None and type(m).__name__ == "module" and m.__dict__.get(n) is v:
            return ["g", mod, n]
    except Exception:  # noqa: BLE001 - an object whose names misbehave is not one of these
        pass
    return None


def _builtins_mod():
    return sys.modules["builtins"]


def _global(mod, n):
    if type(mod) is not str or type(n) is not str:
        raise WireError("bad global name")
    ok = (n in _BUILTIN_FUNCS or n in _BUILTIN_TYPES) if mod == "builtins" else mod in _PURE_MODULES
    # the trusted side imports these before the tree joins sys.path (oracle_conn); the worker may import one here
    m = _mod(mod) if mod in _PURE_MODULES or mod == "builtins" else None
    v = m.__dict__.get(n) if m is not None and type(m).__name__ == "module" else None
    if mod == "builtins" and not ok and isinstance(v, type) and issubclass(v, BaseException):
        ok = True
    if not ok or v is None or global_tag(v, type(v)) != ["g", mod, n]:
        raise WireError("%s.%s does not cross by name" % (mod, n))
    return v


def _f(s):
    if type(s) is not str:
        raise WireError("float tag holds %r" % (s,))
    return float.fromhex(s)


def _hex_int(s):
    if type(s) is not str or MAX_INT_BITS is not None and len(s) > MAX_INT_BITS // 4 + 4:
        raise WireError("an int of %s hex digits is over the limit of %s bits" % (len(s) if type(s) is str else "?", MAX_INT_BITS))
    v = int(s, 16)
    if MAX_INT_BITS is not None and v.bit_length() > MAX_INT_BITS:
        raise WireError("an int of %d bits is over the limit of %d bits" % (v.bit_length(), MAX_INT_BITS))
    return v


def decode(x, from_ref, depth=0):
    """The value of tagged JSON x; from_ref(tag) gives the value of a reference tag."""
    if depth > MAX_DEPTH:
        raise WireError("value nested deeper than %d" % MAX_DEPTH)
    t = type(x)
    if x is None or t is bool or t is str or t is int:
        return x
    if t is not list or not x or type(x[0]) is not str:
        raise WireError("not a tagged value: %.80r" % (x,))
    tag, d = x[0], depth + 1
    try:
        if tag == "i":
            return _hex_int(x[1])
        if tag == "f":
            return _f(x[1])
        if tag == "l":
            return [decode(e, from_ref, d) for e in x[1]]
        if tag == "t":
            return tuple(decode(e, from_ref, d) for e in x[1])
        if tag == "d":
            return {decode(k, from_ref, d): decode(e, from_ref, d) for k, e in x[1]}
        if tag == "s":
            return {decode(e, from_ref, d) for e in x[1]}
        if tag == "fs":
            return frozenset(decode(e, from_ref, d) for e in x[1])
        if tag == "b":
            return base64.b64decode(x[1], validate=True)
        if tag == "ba":
            return bytearray(base64.b64decode(x[1], validate=True))
        if tag == "c":
            return complex(_f(x[1]), _f(x[2]))
        if tag == "sl":
            return slice(decode(x[1], from_ref, d), decode(x[2], from_ref, d), decode(x[3], from_ref, d))
        if tag == "dec":
            return _mod("decimal").Decimal(x[1])
        if tag == "fr":
            return _mod("fractions").Fraction(_hex_int(x[1]), _hex_int(x[2]))
        if tag == "dt":
            return _mod("datetime").datetime.fromisoformat(x[1]).replace(fold=x[2])
        if tag == "da":
            return _mod("datetime").date.fromisoformat(x[1])
        if tag == "ti":
            return _mod("datetime").time.fromisoformat(x[1]).replace(fold=x[2])
        if tag == "td":
            return _mod("datetime").timedelta(days=x[1], seconds=x[2], microseconds=x[3])
        if tag == "p":
            pl = _mod("pathlib")
            cls = {"PurePosixPath": pl.PurePosixPath, "PosixPath": pl.PosixPath}[x[2]]
            return cls(x[1])
        if tag in ("np", "nps"):
            np = _np()
            if np is None:
                raise WireError("a numpy value came but numpy is not imported here")
            dt = np.dtype(x[1])
            if dt.hasobject:
                raise WireError("numpy object arrays do not cross by value")
            if tag == "nps":
                return np.frombuffer(base64.b64decode(x[2], validate=True), dtype=dt)[0]
            return np.frombuffer(base64.b64decode(x[3], validate=True), dtype=dt).reshape(x[2]).copy()
        if tag == "G":
            return ungraph(x, lambda v: decode(v, from_ref, MAX_DEPTH), depth, MAX_NODES, MAX_GRAPH_DEPTH, WireError)
        if tag == "r":
            return from_ref(x)
        if tag == "g":
            return _global(x[1], x[2])
    except WireError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError, ArithmeticError) as e:
        raise WireError("bad %r value: %s" % (tag, e))
    raise WireError("unknown tag %r" % (tag,))


def is_plain(v, depth=0):
    """Whether v would cross whole by value (no reference anywhere inside)."""
    try:
        encode(v, _no_ref, depth)
        return True
    except (_NotPlain, WireError, ValueError, TypeError):  # a value encode cannot take whole crosses by reference
        return False


class _NotPlain(Exception):
    pass


def _no_ref(v):
    raise _NotPlain()


def enum_id(v, t):
    """Worker side: how pytest names an Enum member of the tree as a test's parameter (str(v), Enum's own __str__ only:
    a __str__ of the tree's never runs while an answer is encoded), or None. click's Sentinel.UNSET parametrizes its
    tests: a reference there was named by position ("default3"), so the isolated and the in-process run named the test
    differently and its in-process verdict was never found."""
    e = getattr(__import__("sys").modules.get("enum"), "Enum", None)
    if e is None or not issubclass(t, e) or getattr(t, "__str__", None) is not e.__str__:
        return None
    n = getattr(v, "_name_", None)
    return "%s.%s" % (t.__name__, n) if type(n) is str and type(t.__name__) is str else None
