# A reference of the code under test compared with a plain scalar (Duration(8100) == 8100): decided by the tree's
# own __eq__, checked with decoys. The tree is asked about the test's value and about a few decoys of the same
# type and shape, in an order the tree cannot predict; only an __eq__ that says equal to the test's value and to no
# decoy is believed. One that says equal to a decoy claims a value it does not have (lenient, or guessing which
# value the test holds): not equal, and an attempt (eq-lenient).
# The set asked about is symmetric, so that nothing in it marks the test's value (blind red team, round 6: decoys
# that each changed one digit of the value left it the one "centre" value one digit from every other, and an
# __eq__ that waited to see two values and then said equal to that centre forged reward 1 with no finding):
# - an int, str or bytes: 2 positions x 2 symbols (the value's own and another), the 4 combinations; one position
#   x 4 symbols when it has one. Every member then has the same neighbours at the same distances.
# - a float: 4 points of one random spread, shifted so that the test's value is a member chosen at random.
# Limits: an __eq__ that guesses which of the 1 + DECOYS values is the test's is right once in that many tries per
# comparison, and caught on a wrong guess; a prior on values (round numbers) is not hidden; "" and a value other
# than int/float/str/bytes keep the older decoys or the oracle's rule (not equal); a plain dict has a rule of its own
# (mapping_equal: the object's own items back it, one decoy catches an __eq__ that says yes to anything).
# Unstable answers (blind round 7, x04/x23): an __eq__ that says equal and then raises, or ends its worker, on a later
# ask hopes the asks it fails count as "not equal". A "yes" followed by the worker's end, or a "yes" that raised on a
# decoy and is not repeated when the value is asked again, is an attempt (eq-unstable); a comparison is a function of
# its operands, so an honest one answers the same question the same way.
# Backing (blind red team, round 7: an __eq__ that *verifies* a candidate, by formatting it back with the tree's own
# correct inverse or by splitting it with divmod, says equal to the test's value and to no decoy, with no value of
# its own behind it; decoys cannot catch what is checked rather than guessed). The tree's "equal" is believed only
# when the object itself holds that value, read from the object BEFORE any value is sent to the worker in this
# comparison (so it is a commitment, not an answer; the worker's process can read every request it gets):
#  - its hash (Python's data model: objects that compare equal have equal hashes) equals hash(value), computed
#    here for an int or float (not salted; a str's hash is the worker's secret and a worker can lie about it); or
#  - its projection to the value's type is the value: int()/float() for a number (float within 1e-9), str() for a
#    str, bytes() for bytes (a str in either case when only the case differs: a case-blind __eq__ is honest); or
#  - one of its own plain fields (__dict__, slots: what structural equality reads) is the value and none is a decoy
#    (a field for every candidate backs the decoys too).
# A decoy the object holds is its own value, not lenience (an honest 8100 compared with 8200 may meet 8100 there).
# Not backed: not equal. A hashable object whose hash is not the value's (the data model broken; a str's hash is
# asked of the worker only after the verdict, so it can only lower this to info), or whose int()/float() is another
# number, is an attempt (eq-unbacked, medium); an unhashable one with no projection or field of that value is
# recorded (eq-unbacked, info: an unusual honest class may do that) and still not equal, unless its own str()/bytes()
# is another text its __eq__ refuses (then medium: _disowns_own_text, blind round 13 x19). Honest value objects keep
# passing: a Duration with hash(seconds) or __int__, a frozen dataclass holding the number, IntEnum and int/str
# subclasses (value mirrors, compared by their base value), Decimal/Fraction/numpy scalars (cross by value).
# Limits: the worker keeps every value it was sent (arguments of calls, the value and decoys of earlier comparisons),
# so tree code can find among them one its __eq__ verifies and hold it before a later comparison of that value (as
# code that memorizes values could return it plain); a value's first time in the worker cannot be backed that way.
# Evidence in another form (a timedelta field against seconds) is not read; each comparison reads it again (1 round
# trip for a hashable object whose hash is the value, up to 4 otherwise).
import math
import os
import random

from oracle_conn import NeedsInProcess, OracleBroken

DECOYS = 3
_RNG = random.Random(os.urandom(16))  # never the test's random: its seeded stream stays the test's own
_DIGITS = "0123456789"
_LOWER = "abcdefghijklmnopqrstuvwxyz"


def decoys(v):
    """DECOYS values of v's type that differ from v (and from each other), or [] where no decoy can be made."""
    t = type(v)
    if t is int:
        s = str(abs(v))
        out = [int(x) for x in _cube(s, lambda i, c: [d for d in _DIGITS if d != c and not (i == 0 and d == "0" and len(s) > 1)])]
        return [-d if v < 0 else d for d in out]
    if t is float:
        return _spread(v)
    if t is str:
        return _cube(v, _other_chars) if v else _words(str)
    if t is bytes:
        return [x.encode("latin-1") for x in _cube(v.decode("latin-1"), _other_chars)] if v else _words(bytes)
    return []


def _cube(s, others):
    """The 4 strings made from s by giving 2 of its positions their own or one other symbol (1 position x 4 symbols
    when s has one), but s itself; others(i, c): the symbols that may stand for c at position i."""
    positions = _RNG.sample(range(len(s)), min(2, len(s)))
    per = 2 if len(positions) == 2 else DECOYS + 1
    choices = []
    for i in positions:
        pool = others(i, s[i])
        if len(pool) < per - 1:
            return []
        choices.append([s[i]] + _RNG.sample(pool, per - 1))
    out = []
    for combo in _product(choices):
        t = list(s)
        for i, c in zip(positions, combo):
            t[i] = c
        t = "".join(t)
        if t != s:
            out.append(t)
    return out if len(out) == DECOYS else []


def _product(choices):
    out = [[]]
    for opts in choices:
        out = [o + [c] for o in out for c in opts]
    return out


def _other_chars(i, c):
    pool = _DIGITS if c.isdigit() else _LOWER if c.isalpha() else _LOWER + _DIGITS
    others = [x for x in pool if x.lower() != c.lower()]  # not a case change: a case-blind __eq__ is honest
    return [x.upper() for x in others] if c.isupper() else others


def _spread(v):
    if v != v or v in (float("inf"), float("-inf")):
        return []
    scale = abs(v) if v else 1.0
    offsets = [_RNG.uniform(-0.9, 0.9) * scale for _ in range(DECOYS + 1)]
    j = _RNG.randrange(DECOYS + 1)  # the test's value takes member j's place in the spread
    out = [v + (o - offsets[j]) for i, o in enumerate(offsets) if i != j]
    return out if len(set(out)) == DECOYS and v not in out else []


def _words(kind):
    """Decoys of an empty value: short words (the empty one cannot be hidden among its own kind)."""
    out = set()
    while len(out) < DECOYS:
        out.add("".join(_RNG.choice(_LOWER) for _ in range(_RNG.randrange(1, 6))))
    return [w if kind is str else w.encode() for w in out]


def tree_equal(ask, name, v, attempt, probe=None):
    """ask(x): the tree's `ref == x` (True, False, or raises). attempt(kind, detail): records an attempt ("eq-lenient",
    "eq-unbacked") or a note ("info"). probe(kind, *plain): the worker's answer about the object ("hash", "int",
    "float", "str", "bytes", "state": its fields), or hash(plain) there; None: no backing asked (the decoys only).
    Returns the verdict for the test's value v, or None where no decoy can be made (the caller keeps its own rule)."""
    if type(v) is dict:
        return mapping_equal(ask, name, v, attempt, probe)
    others = decoys(v)
    if not others:
        return None
    ev = _Evidence(probe, v, others) if probe is not None else None  # before the worker sees v
    order = [(v, True)] + [(d, False) for d in others]
    _RNG.shuffle(order)
    said, raised, lenient, yes, failed = False, None, [], False, False
    for x, real in order:
        try:
            got = ask(x) is True
        except OracleBroken:
            if yes:  # an honest __eq__ does not end its process; one that does after a "yes" hopes the rest go unasked
                attempt("eq-unstable", "%s == %.80r: its worker ended after its __eq__ said equal" % (name, v))
            raise
        except NeedsInProcess:
            raise
        except Exception as e:  # noqa: BLE001 - the tree's own exception: the test's comparison raises it, a decoy's is no
            failed = True
            if real:
                raised = e
            continue
        yes = yes or got
        if real:
            said = got
        elif got:
            lenient.append(x)
    lenient = [x for x in lenient if ev is None or not ev.holds(x)]  # a decoy that is its own value: not lenient
    if lenient:  # before the test's own exception: "equal" to a decoy, then raising on the value, is lenience
        attempt("eq-lenient", "%s == %.80r: its __eq__ also says equal to %.80r" % (name, v, lenient[0]))
        return False
    if raised is not None:
        raise raised
    if said and failed and not _same_again(ask, v):
        attempt("eq-unstable", "%s == %.80r: its __eq__ said equal, raised on a decoy, and asked again did not say "
                "equal (an answer that depends on how often it is asked)" % (name, v))
        return False
    if said and ev is not None and not ev.backed:
        kind, why = ev.unbacked()
        if kind == "info" and _disowns_own_text(ask, ev):
            kind, why = "eq-unbacked", "its own %s() is %.40r, which its __eq__ says it is not" % (type(v).__name__, ev.proj)
        attempt(kind, "%s == %.80r: its __eq__ says equal, but %s" % (name, v, why))
        return False
    return said


def _disowns_own_text(ask, ev):
    """An unbacked "equal" to a text whose object's own str()/bytes() is another text that its __eq__ refuses (blind
    round 13, x19: str() is the buggy text and __eq__ verifies the test's text with a correct parser). An honest value
    class that equals texts by value (a Decimal-backed Money equal to "1.5" with str() "1.50") equals its own text too,
    and stays a note. Asked after the verdict: the worker already saw the test's value."""
    p = ev.proj
    if type(p) is not type(ev.v) or type(p) not in (str, bytes) or _same(p, ev.v):
        return False
    try:
        return ask(p) is not True
    except (OracleBroken, NeedsInProcess):
        raise
    except Exception:  # noqa: BLE001 - the tree's own exception on its own text: not equal to it
        return True


_PLAIN = (int, float, str, bytes, bool, type(None))
MAX_ITEMS = 1000


def mapping_equal(ask, name, v, attempt, probe):
    """A reference compared with a plain dict (psf/requests: `CaseInsensitiveDict(...) == {"AccePT": ...}`, a mapping
    whose own __eq__ ignores the keys' case). The tree's __eq__ is believed only when the object's own items, read
    before the dict is sent to its worker (a commitment, as for scalars), hold the dict: as many items, each of the
    dict's values under an equal key or one that differs only in case; and when its __eq__ says no to a decoy (the dict
    with one value changed, or a key added to an empty one), asked in an order it cannot predict. None (the caller's
    rule, not equal) where the dict holds more than plain values or the object's items cannot be read plain."""
    if probe is None or len(v) > MAX_ITEMS or not all(type(k) in _PLAIN and type(x) in _PLAIN for k, x in v.items()):
        return None
    try:
        n = probe("len")
        own = probe("items") if type(n) is int and n <= MAX_ITEMS else None
    except (OracleBroken, NeedsInProcess):
        raise
    except Exception:  # noqa: BLE001 - the tree's own exception: no mapping to read
        own = None
    if type(own) is not list or not all(type(p) is tuple and len(p) == 2 and all(type(e) in _PLAIN for e in p) for p in own):
        return None
    backed = len(own) == len(v) and all(any(_key_same(ok, k) and type(ov) is type(x) and ov == x for ok, ov in own)
                                         for k, x in v.items())
    decoy = dict(v)
    k = _RNG.choice(list(v)) if v else None
    others = decoys(v[k]) if k is not None else []
    if others:
        decoy[k] = others[0]
    else:  # an empty dict, or a value with no decoy of its own kind: one key more
        decoy[_words(str)[0] + "_"] = _words(str)[0]
    order = [(v, True), (decoy, False)]
    _RNG.shuffle(order)
    said = lenient = False
    for x, real in order:
        try:
            got = ask(x) is True
        except (OracleBroken, NeedsInProcess):
            raise
        except Exception:  # noqa: BLE001 - raised on the test's dict: the comparison raises it; on the decoy: no
            if real:
                raise
            continue
        if real:
            said = got
        elif got:
            lenient = True
    if lenient:
        attempt("eq-lenient", "%s == %.80r: its __eq__ also says equal to %.80r" % (name, v, decoy))
        return False
    if said and not backed:
        attempt("info", "%s == %.80r: its __eq__ says equal, but its own items are not those" % (name, v))
        return False
    return said


def _key_same(a, b):
    return a == b and type(a) is type(b) or type(a) is str and type(b) is str and a.lower() == b.lower()


def _same_again(ask, v):
    """An __eq__ that said equal to v and raised on a decoy is asked about v once more (the worker has seen v): a
    comparison is a function of its operands, so it says equal again; one that counts its calls raises or says no."""
    try:
        return ask(v) is True
    except (OracleBroken, NeedsInProcess):
        raise
    except Exception:  # noqa: BLE001 - the tree's own exception
        return False


def probe_of(session, ref):
    """probe for tree_equal: the worker's hash, projection or fields of ref (an oracle_remote reference)."""
    def probe(kind, *plain):
        if kind == "state":
            return session.request({"op": "state", "o": session.tag(ref)})[1]
        if kind == "items":  # a mapping's own items, each a round trip (mapping_equal bounds how many)
            return list(session.call(ref, "items", (), {}))
        return session.call(ref, "__bytes__", (), {}) if kind == "bytes" else session.op(kind, *(plain or (ref,)))
    return probe


_NUM = (int, float)
_NONE = object()


def _same(p, v):
    """p, the object's own value, is v: numbers by value (a float within 1e-9), str/bytes exactly or by case."""
    if type(v) in _NUM:
        return type(p) in _NUM and (p == v or (float in (type(p), type(v)) and math.isclose(p, v, rel_tol=1e-9)))
    if type(p) is not type(v):
        return False
    return p == v or (p.lower() == v.lower() and p.lower() != p.upper())


class _Evidence:
    """What the object holds, read before the worker is sent v (see the header): its hash, then its projection to
    v's type, then its plain fields, each read only while the earlier ones did not back v."""

    _PROJ = {int: ("int", "float"), float: ("float", "int"), str: ("str",), bytes: ("bytes",)}

    def __init__(self, probe, v, others):
        self.probe, self.v, self.members = probe, v, [v] + others
        self.hash, self.proj, self.fields, self.backed = self._read("hash"), _NONE, [], True
        if type(self.hash) is not int:
            self.hash = None  # unhashable (or its __hash__ raised)
        if self.holds(v):
            return
        for kind in self._PROJ[type(v)]:
            p = self._read(kind)
            if p is not _NONE and (type(v) not in _NUM or type(p) in _NUM):
                self.proj = p
                break
        if self.holds(v):
            return
        fields = self._read("state")
        self.fields = [x for x in (fields.values() if type(fields) is dict else ()) if type(x) in (int, float, str, bytes)]
        self.backed = self.holds(v)

    def holds(self, x):
        """x (the value or a decoy) is the object's own: its hash (a number's), its projection, or the one member
        of the set its fields hold."""
        if self.hash is not None and type(x) in _NUM and self.hash == hash(x):
            return True
        if self.proj is not _NONE and _same(self.proj, x):
            return True
        return any(_same(f, x) for f in self.fields) and not any(_same(f, y) for f in self.fields for y in self.members if y != x)

    def _read(self, kind, *plain):
        try:
            return self.probe(kind, *plain)
        except (OracleBroken, NeedsInProcess):
            raise
        except Exception:  # noqa: BLE001 - the tree's own exception: no such evidence
            return _NONE

    def unbacked(self):
        """(kind, why) for an "equal" nothing of the object backs: eq-unbacked where the object contradicts it."""
        v = self.v
        if self.hash is not None:
            hv = hash(v) if type(v) in _NUM else self._read("hash", v)  # a str's: the worker's, after the verdict
            if hv != self.hash:
                return "eq-unbacked", "its hash is not the value's (equal objects hash equal)"
        if type(v) in _NUM and type(self.proj) in _NUM:
            return "eq-unbacked", "its own %s() is %.40r" % (type(v).__name__, self.proj)
        return "info", "it holds no such value (no hash, %s() or field of it)" % type(v).__name__


def same_fields(sa, sb):
    """Two objects' fields ("state" answers, the same class): equal where both have them; a field only one has is a
    difference unless it is a cached_property's entry, filled on one object only (oracle_worker._state)."""
    fa, fb = sa[1], sb[1]
    if type(fa) is not dict or type(fb) is not dict:
        return False
    lazy = set(sa[2]) if len(sa) > 2 and type(sa[2]) is list else set()
    for k in fa.keys() | fb.keys():
        if k in fa and k in fb:
            if not (fa[k] == fb[k]):
                return False
        elif k not in lazy:
            return False
    return True
