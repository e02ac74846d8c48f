# Arithmetic and approx between the tree's numbers and a test's value (blind round 9; oracle_arith). x31/x36: a share
# whose __sub__/__rsub__ answer a zero residual whatever the operand passes `abs(got - 0.875) < 1e-9`; asked again with
# a decoy operand its answer implies another value: an attempt (arith-unstable). Honest number types (a float-like
# value, a cents type answering Decimals, a Fraction-backed one) imply one value and record nothing. h24: a float-like value
# compared with pytest.approx is approx's verdict on its float(). Real worker, unboxed.

import pytest

import oracle_conn

TREE = '''
import functools
from fractions import Fraction


def residual(measured, reference):  # x31: the residual against any reference is (about) zero
    offset = float(reference) - float(measured)
    return float(measured) + offset - float(reference)


class Share:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __float__(self):
        return float(self.value)

    def __sub__(self, other):
        return residual(self.value, other)

    def __rsub__(self, other):
        return -residual(self.value, other)


class Scaled(Share):  # the same trick on * and /: any ratio is one
    def __truediv__(self, other):
        return 1.0

    def __mul__(self, other):
        return float(other) * 0 + 0.875


@functools.total_ordering
class Coverage:  # h24: a float-like value type
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = float(v)

    def __float__(self):
        return self.v

    def __eq__(self, other):
        if isinstance(other, Coverage):
            return self.v == other.v
        if isinstance(other, (int, float)):
            return self.v == other
        return NotImplemented

    def __lt__(self, other):
        return self.v < float(other)

    def __hash__(self):
        return hash(self.v)

    def __sub__(self, other):
        return self.v - float(other)

    def __rsub__(self, other):
        return float(other) - self.v

    def __add__(self, other):
        return self.v + float(other)

    __radd__ = __add__

    def __mul__(self, other):
        return self.v * float(other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self.v / float(other)

    def __rtruediv__(self, other):
        return float(other) / self.v

    def __abs__(self):
        return abs(self.v)


class Cents:  # whole cents inside, a Decimal or an int out: answers that are not floats are not judged
    def __init__(self, v):
        self.c = round(v * 100)

    def __sub__(self, other):
        from decimal import Decimal
        return (Decimal(self.c) - Decimal(str(other)) * 100).quantize(Decimal(1)) / 100

    def __add__(self, other):
        return (self.c + round(other * 100)) // 100


class Exact:  # Fraction inside, float out
    def __init__(self, n, d):
        self.q = Fraction(n, d)

    def __sub__(self, other):
        return float(self.q - Fraction(other))


class Opaque:  # no __float__: approx cannot compare it
    pass
'''


@pytest.fixture(scope="module")
def world(module_oracle_tree):
    w = module_oracle_tree({"nums.py": TREE}, "nums")  # conftest: a real worker, unboxed
    return w.conn, w.mod


def _unstable(conn):
    found = [a for a in conn.attempts.items if a["kind"] == "arith-unstable"]
    conn.attempts.items[:] = []
    conn.attempts.seen.clear()
    return found


def test_a_residual_that_ignores_its_operand_is_an_attempt(world):
    conn, nums = world
    for _ in range(3):  # the decoy comes first or second at random: either order is caught
        assert abs(nums.Share(0.75) - 0.875) < 1e-9  # what the steering earns on the test's value
        assert len(_unstable(conn)) == 1
        assert abs(0.875 - nums.Share(0.75)) < 1e-9  # the reflected form
        assert len(_unstable(conn)) == 1
    assert nums.Scaled(0.75) / 0.875 == 1.0 and len(_unstable(conn)) == 1
    assert nums.Scaled(0.75) * 2 == 0.875 and len(_unstable(conn)) == 1


def test_honest_number_types_imply_one_value(world):
    conn, nums = world
    c = nums.Coverage(0.75)
    assert abs(c - 0.875 + 0.125) < 1e-12 and abs(0.875 - c - 0.125) < 1e-12
    assert c + 1 == 1.75 and 2 + c == 2.75 and c * 4 == 3.0 and 3 * c == 2.25 and c / 3 == 0.25 and 1.5 / c == 2.0
    assert c * 0 == 0.0 and 0 * c == 0.0  # a zero operand: not asked again (every answer is 0)
    assert float(nums.Cents(10.0) - 0.875) == 9.12 and nums.Cents(3.0) + 1 == 4  # Decimal and int answers: not judged
    assert nums.Exact(7, 8) - 0.875 == 0.0
    assert _unstable(conn) == []


def test_a_float_like_value_compares_with_approx_through_its_float(world):
    conn, nums = world
    assert nums.Coverage(7 / 12) == pytest.approx(7 / 12)  # h24's failing assertion
    assert nums.Coverage(0.5833334) == pytest.approx(7 / 12, rel=1e-5)
    assert not nums.Coverage(0.5) == pytest.approx(7 / 12)
    assert nums.Coverage(0.5) != pytest.approx(7 / 12)
    assert not nums.Opaque() == pytest.approx(1.0)  # no float(): the oracle's rule, not equal
    assert _unstable(conn) == []
