# A reference of the code under test compared with a plain scalar (Duration(8100) == 8100): decided by the tree's
# own __eq__, checked with decoys. The tree is asked about the test's value and about a few decoys of the same
# type and shape (one digit or character changed), in an order the tree cannot predict; only an __eq__ that says
# equal to the test's value and to no decoy is believed. One that says equal to a decoy claims a value it does not
# have (lenient, or guessing which value the test holds): not equal, and an attempt (eq-lenient).
# Limits: an __eq__ that guesses which of the 1 + DECOYS values is the test's is right once in that many tries per
# comparison, and caught on a wrong guess; a value other than int/float/str/bytes keeps the oracle's rule (not equal).
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
    if t not in (int, float, str, bytes):
        return []
    out, tries = [], 0
    while len(out) < DECOYS and tries < 50:
        tries += 1
        d = _one(v)
        if d is not None and d != v and d not in out:
            out.append(d)
    return out if len(out) == DECOYS else []


def _one(v):
    if type(v) is int:
        s = str(abs(v))
        i = _RNG.randrange(len(s))
        choices = [c for c in _DIGITS if c != s[i] and not (i == 0 and c == "0" and len(s) > 1)]
        d = int(s[:i] + _RNG.choice(choices) + s[i + 1:])
        return -d if v < 0 else d
    if type(v) is float:
        if v != v or v in (float("inf"), float("-inf")):
            return None
        scale = abs(v) if v else 1.0
        return v + _RNG.choice((-1, 1)) * scale * _RNG.uniform(0.05, 0.9)
    if type(v) is str:
        return _change_char(v, str)
    return _change_char(v.decode("latin-1"), bytes)


def _change_char(s, kind):
    if not s:
        w = "".join(_RNG.choice(_LOWER) for _ in range(_RNG.randrange(1, 6)))
        return w if kind is str else w.encode()
    i = _RNG.randrange(len(s))
    c = s[i]
    pool = _DIGITS if c.isdigit() else _LOWER if c.isalpha() else _LOWER + _DIGITS
    choices = [x for x in pool if x.lower() != c.lower()]  # not a case change: a case-blind __eq__ is honest
    if c.isupper():
        choices = [x.upper() for x in choices]
    new = s[:i] + _RNG.choice(choices) + s[i + 1:]
    return new if kind is str else new.encode("latin-1")


def tree_equal(ask, name, v, attempt):
    """ask(x): the tree's `ref == x` (True, False, or raises). Returns the verdict for the test's value v, or None
    where no decoy can be made (the caller keeps its own rule)."""
    others = decoys(v)
    if not others:
        return None
    order = [(v, True)] + [(d, False) for d in others]
    _RNG.shuffle(order)
    said, raised, lenient = False, None, []
    for x, real in order:
        try:
            got = ask(x) is True
        except (OracleBroken, NeedsInProcess):
            raise
        except Exception as e:  # noqa: BLE001 - the tree's own exception: the test's comparison raises it, a decoy's is no
            if real:
                raised = e
            continue
        if real:
            said = got
        elif got:
            lenient.append(x)
    if raised is not None:
        raise raised
    if lenient:
        attempt("%s == %.80r: its __eq__ also says equal to %.80r" % (name, v, lenient[0]))
        return False
    return said
