# Ordering of the tree's value-type subclasses (blind round 8, h14): a class that subclasses tuple/int/str and
# redefines __lt__ & co. orders by its own rule in-process, so it must under the oracle too (its mirror's operators
# run in the worker, as any reference's do, when both operands are the tree's), while == and hash stay its base
# value's, and so does ordering against a test's plain value (never sent to the tree). A lenient ordering gains only
# what it gains on any reference: a test's reference order or its `not hi < lo` still fails it. Real worker, unboxed.
import random

import pytest


TREE = '''
import dataclasses
from typing import NamedTuple, Tuple


def _ident(p):
    return (0, int(p), "") if p.isdigit() else (1, 0, p)


class _Fields(NamedTuple):
    major: int
    minor: int
    patch: int
    pre: Tuple[str, ...] = ()


class Version(_Fields):  # h14: SemVer precedence, not tuple order (a release outranks its pre-releases)
    def _key(self):
        return (self.major, self.minor, self.patch, (1,) if not self.pre else (0,) + tuple(_ident(p) for p in self.pre))

    def __lt__(self, other):
        return self._key() < other._key() if isinstance(other, Version) else NotImplemented

    def __le__(self, other):
        return self._key() <= other._key() if isinstance(other, Version) else NotImplemented

    def __gt__(self, other):
        return self._key() > other._key() if isinstance(other, Version) else NotImplemented

    def __ge__(self, other):
        return self._key() >= other._key() if isinstance(other, Version) else NotImplemented


def parse(s):
    core, _, pre = s.partition("-")
    a, b, c = (int(x) for x in core.split("."))
    return Version(a, b, c, tuple(pre.split(".")) if pre else ())


class Lenient(_Fields):  # an exploit: every ordering question answered yes
    def __lt__(self, other):
        return True

    __le__ = __gt__ = __ge__ = __lt__


def lenient(s):
    return Lenient(*parse(s))


class _Agreeable(int):  # x02: compare() answers an int that agrees with any ordering
    def __lt__(self, other):
        return True

    __le__ = __gt__ = __ge__ = __lt__


def agreeable(n):
    return _Agreeable(n)


class Priority(int):  # a smaller number is the higher priority: ordering reversed
    def __lt__(self, other):
        return int(self) > int(other)

    def __gt__(self, other):
        return int(self) < int(other)


class Name(str):  # ordered without case
    def __lt__(self, other):
        return self.lower() < str(other).lower()

    def __gt__(self, other):
        return self.lower() > str(other).lower()


@dataclasses.dataclass(order=True, frozen=True)
class Release:
    major: int
    minor: int


class Plain(NamedTuple):  # no ordering of its own: tuple order, decided in the trusted process
    a: int
    b: int
'''

VERSIONS = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.0.1", "1.10.0", "2.0.0-rc.1", "2.0.0"]  # SemVer 2.0.0's own precedence example


_REC = []  # the test record the connection files events under


@pytest.fixture(scope="module")
def tree(module_oracle_tree):
    w = module_oracle_tree({"vals.py": TREE}, "vals")  # conftest: a real worker, unboxed
    _REC.append(w.rec)
    return w.mod


def test_a_namedtuple_version_orders_by_its_own_semver_key(tree):
    v = [tree.parse(s) for s in VERSIONS]
    assert isinstance(v[0], tuple)  # still a value mirror
    assert tree.parse("1.0.0-rc.1") < tree.parse("1.0.0")  # h14's failing assertion: False on the plain tuple
    assert tree.parse("1.0.0-beta.2") < tree.parse("1.0.0-beta.11")
    assert not tree.parse("1.0.0") < tree.parse("1.0.0-rc.1") and tree.parse("1.0.0") >= tree.parse("1.0.0-rc.1")
    shuffled = v[:]
    random.Random(7).shuffle(shuffled)
    assert [str(x.pre) + str(x[:3]) for x in sorted(shuffled)] == [str(x.pre) + str(x[:3]) for x in v]
    assert max(shuffled) == tree.parse("2.0.0") and tree.parse("1.0.0") == (1, 0, 0, ())  # == stays the base value's


def test_an_always_true_ordering_still_fails_a_reference_order(tree):
    assert tree.lenient("1.0.0-rc.1") < tree.lenient("1.0.0")  # what it answers: yes, to everything
    assert tree.lenient("1.0.0") < tree.lenient("1.0.0-rc.1")  # so the reverse question catches it
    shuffled = VERSIONS[:]
    random.Random(7).shuffle(shuffled)
    got = [tuple(x) for x in sorted(tree.lenient(s) for s in shuffled)]  # the test's sort, asking the tree's __lt__
    assert got != [tuple(tree.parse(s)) for s in VERSIONS]


def test_int_and_str_subclasses_order_by_their_own_rule(tree):
    p1, p5 = tree.Priority(1), tree.Priority(5)
    assert not (p1 < p5) and p5 < p1 and p1 > p5 and p1 == 1 and p1 + 1 == 2  # ==, arithmetic: the base int's
    assert sorted([tree.Priority(3), p1, p5]) == [5, 3, 1]
    assert tree.Name("apple") < tree.Name("Banana") and not tree.Name("Banana") < tree.Name("apple")
    assert tree.Name("Apple") != "apple"  # equality: the base str's


def test_ordering_against_a_plain_value_stays_the_base_values(tree):
    # the test's value is not sent to the tree (round 8, x02): an int subclass whose every ordering says yes is
    # ordered as its int, here, with nothing recorded and no fall back to in-process grading
    events = _REC[0].events
    del events[:]
    assert not (tree.agreeable(1) < 0) and not (tree.agreeable(-1) > 0) and tree.agreeable(1) > 0
    assert not (tree.lenient("1.0.0") < (0, 9, 9, ()))
    assert not (tree.Priority(1) > 5)  # an honest reversed rule too: against a plain value, the base value's
    assert events == []


def test_a_dataclass_with_order_and_a_plain_namedtuple(tree):
    assert tree.Release(1, 2) < tree.Release(1, 10) and sorted([tree.Release(2, 0), tree.Release(1, 9)])[0].major == 1
    assert tree.Plain(1, 2) < tree.Plain(1, 3) and tree.Plain(2, 0) > (1, 9)  # tuple order, here: no worker asked
