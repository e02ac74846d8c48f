# Arithmetic and approx comparisons between a reference of the code under test and a test's plain number (trusted side).
# 1. Operand-independent arithmetic (blind round 9, x31/x36): `abs(tree_value - 0.875) < 1e-9` sends the test's 0.875
#    to the tree's __sub__/__rsub__, which answered a zero residual whatever the operand; the test passed split, was sent
#    to in-process grading (remote-with-plain) and passed there again. As the eq-unstable probe does for ==, the same
#    operation is asked twice, with the test's operand and with a decoy (the operand moved by 5-50 % of itself, either
#    way: as plausible a value as the test's), in an order the tree cannot predict. For + - * / of a number, each float
#    answer implies the tree's own value (r + c for x - c, c - r for c - x, r - c, r / c, r * c, c / r); an honest number
#    type implies the same value both times (within 1e-6 relative: float rounding). Two different implied values mean
#    the answer follows the operand, not a value the tree holds: an attempt (arith-unstable), which voids the grade, as
#    the test's verdict then came from steering. Answers that are not floats (a Money, a Decimal, an int) are not judged.
#    Limits: a tree that guesses which of the two operands is the test's and steers only that one is caught when it
#    guesses wrong (half the time, per operation); a type that returns plain floats rounded coarsely (to cents) reads
#    as steering.
# 2. `tree_value == pytest.approx(x)` (round 9, h24: a float-like value type): the oracle's rule made a reference never
#    equal to an approx object, failing an honest test. Here the tree is asked float(tree_value), a plain float that
#    crosses back without the test's value ever reaching the tree, and the approx object compares that: what a
#    float-like type means by its __float__, and no more than returning a float would earn.
import math
import os
import random

from oracle_conn import NeedsInProcess, OracleBroken

_RNG = random.Random(os.urandom(16))  # never the test's random
_IMPLIED = {
    ("sub", False): lambda r, c: r + c, ("sub", True): lambda r, c: c - r,
    ("add", False): lambda r, c: r - c, ("add", True): lambda r, c: r - c,
    ("mul", False): lambda r, c: r / c, ("mul", True): lambda r, c: r / c,
    ("truediv", False): lambda r, c: r * c, ("truediv", True): lambda r, c: c / r,
}


def _number(v):
    return type(v) in (int, float) and math.isfinite(v)


def _decoy(c):
    """A value near c, as plausible as c (a share's decoy is a share): the tree cannot tell which is the test's by range."""
    spread = abs(c) * _RNG.uniform(0.05, 0.5) if c else _RNG.uniform(0.05, 0.5)
    if type(c) is int:
        return c + max(1, int(spread)) * _RNG.choice((-1, 1))
    d = c + spread * _RNG.choice((-1, 1))
    return d if d != c else c + 1.0


def arith_probed(session, name, a, b, remote):
    """session.op(name, a, b), where one of a, b is a reference (isinstance of remote) and the other the test's value."""
    reflected = not isinstance(a, remote)
    c = a if reflected else b
    if (name, reflected) not in _IMPLIED or not _number(c) or isinstance(c, remote):
        return session.op(name, a, b)
    d = _decoy(c)
    if name in ("mul", "truediv") and (c == 0 or d == 0):
        return session.op(name, a, b)
    ask = (lambda v: session.op(name, v, b)) if reflected else (lambda v: session.op(name, a, v))
    if _RNG.random() < 0.5:
        r = ask(c)
        rd = ask(d)
    else:
        rd = ask(d)
        r = ask(c)
    if type(r) is float and type(rd) is float and math.isfinite(r) and math.isfinite(rd):
        try:
            x, xd = _IMPLIED[(name, reflected)](r, c), _IMPLIED[(name, reflected)](rd, d)
        except ZeroDivisionError:
            return r
        if not math.isclose(x, xd, rel_tol=1e-6, abs_tol=1e-9):
            what = "%r %s %s" % (c, name, "the tree's value") if reflected else "the tree's value %s %r" % (name, c)
            session.conn.attempts.add("arith-unstable", "%s (%s) answered %r, implying the value %r; asked with %r it implied %r: "
                                      "the answer follows the operand, not a value the tree holds"
                                      % (what, (a if not reflected else b)._o_info.get("n"), r, x, d, xd), session.conn.test)
    return r


def is_approx(b):
    t = type(b)
    return t.__name__ == "ApproxScalar" and t.__module__.startswith("_pytest")


def approx_float(session, a, b):
    """tree_value == approx(x): approx compares float(tree_value), asked of the tree; None where it has no float."""
    try:
        f = session.op("float", a)
    except (OracleBroken, NeedsInProcess):
        raise
    except Exception:  # noqa: BLE001 - the tree's own TypeError (no __float__): the oracle's rule decides
        return None
    if type(f) is not float:
        return None
    session.record("remote-approx-float", "%s compared with pytest.approx through its float()" % a._o_info.get("n"))
    return b == f


def remember_answer(session, key, v, remote_cls):
    """A call's answer, noted for note_steering: a reference keeps the call it came from, a plain value's type is kept
    per call target (bounded)."""
    if isinstance(v, remote_cls):
        v._o_info.setdefault("_o_from", key)
    elif type(v) in (str, bytes, int, float, list, tuple, dict) and len(session.answered) < 10000:
        session.answered.setdefault(key, set()).add(type(v))
    return v


def note_steering(session, name, plain, other, remote_cls):
    """Steering (blind round 10, x44): a function that answers plain values of this very type elsewhere answered a
    reference here, and the test's value went into its operators: the test then passes only in-process, where the tree
    runs beside the verdicts. An honest function answers one kind of value; a value type that is always a reference
    (Money + 3) is none. A `steer` attempt."""
    src = other._o_info.get("_o_from") if isinstance(other, remote_cls) else None
    if src is not None and type(plain) in session.answered.get(src, ()):
        session.conn.attempts.add("steer", "%s answered plain %s elsewhere and a reference (%s) here, which took a test's %s "
                                  "into its operators (%s)" % (src[2] or "a function", type(plain).__name__, other._o_info.get("n"),
                                                               type(plain).__name__, name), session.conn.test)
