# The isolated oracle's decoys (oracle_eq): a tree object compared with a plain value is asked about the test's
# value and DECOYS others; nothing in that set may mark which one is the test's.
import collections
import os
import random
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev",
                                                "crucible", "verifier", "grade", "oracle")))

import oracle_eq  # noqa: E402

VALUES = [8100, 7, 42, -3605, 90061, "1h30m", "x", "Hello", b"ab", b"q", 2.5, 0.0, -1e-3]


def _distance(a, b):
    if isinstance(a, float):
        return None
    return sum(x != y for x, y in zip(str(a), str(b))) + abs(len(str(a)) - len(str(b)))


def _profile(member, others):
    return sorted(_distance(member, o) for o in others)


def test_decoys_are_of_the_values_type_and_differ_from_it_and_each_other():
    for v in VALUES:
        for _ in range(50):
            d = oracle_eq.decoys(v)
            assert len(d) == oracle_eq.DECOYS, (v, d)
            assert all(type(x) is type(v) for x in d), (v, d)
            assert v not in d and len(set(d)) == len(d), (v, d)


def test_no_member_of_the_set_stands_out_by_its_distances_to_the_others():
    # round 6's forgery: each decoy changed one digit of the value, so the value was the only member one change
    # away from all the others. Every member must have the same profile of distances to the rest.
    for v in VALUES:
        if isinstance(v, float):
            continue
        for _ in range(50):
            s = [v] + oracle_eq.decoys(v)
            profiles = {tuple(_profile(m, [o for o in s if o is not m])) for m in s}
            assert len(profiles) == 1, (v, s, profiles)


def _centre_guess(seen):
    """e06's strategy: the member closest to all the others (sum of distances; floats by value)."""
    def cost(m):
        if isinstance(m, float):
            return sum(abs(m - o) for o in seen)
        return sum(_distance(m, o) for o in seen)
    return min(seen, key=cost)


def test_a_centre_guessing_eq_is_right_about_once_in_four_and_caught_otherwise(monkeypatch):
    make = oracle_eq.decoys
    wins = caught = 0
    trials = 4000
    for t in range(trials):
        v = VALUES[t % len(VALUES)]
        d = make(v)
        monkeypatch.setattr(oracle_eq, "decoys", lambda _v, d=d: list(d))
        s = [v] + d
        guess = _centre_guess(random.sample(s, len(s)))  # the attacker sees the whole set before it answers (the best case for it)
        asked = []

        def ask(x):
            asked.append(x)
            return x == guess

        attempts = []
        said = oracle_eq.tree_equal(ask, "ref", v, lambda k, d: attempts.append(d))
        if said:
            wins += 1
        if attempts:
            caught += 1
        assert sorted(map(repr, asked)) == sorted(map(repr, s)), "asked about the value and each decoy once"
    assert wins / trials < 0.33, "the centre must not point at the test's value: %d of %d" % (wins, trials)
    assert wins + caught == trials, "a guess that is not the value says equal to a decoy and is an attempt"


def test_an_honest_eq_is_believed_and_a_lenient_one_is_an_attempt():
    honest = []
    assert oracle_eq.tree_equal(lambda x: x == 8100, "ref", 8100, lambda k, d: honest.append(d)) is True
    assert honest == []
    lenient = []
    for _ in range(200):
        oracle_eq.tree_equal(lambda x: x % 100 == 0 or x == 8100, "ref", 8100, lambda k, d: lenient.append(d))
    assert lenient, "an __eq__ that says equal to other round values is caught at least sometimes"


def test_the_set_is_asked_in_a_random_order():
    firsts = collections.Counter()
    for _ in range(400):
        order = []
        oracle_eq.tree_equal(lambda x: order.append(x) or x == 8100, "ref", 8100, lambda k, d: None)
        firsts[order[0] == 8100] += 1
    assert 40 < firsts[True] < 180, firsts


class _Counting:
    """An __eq__ that says equal to the first value it is asked about, then raises (blind round 7, x04)."""

    def __init__(self):
        self.asked = 0

    def __call__(self, x):
        self.asked += 1
        if self.asked > 1:
            raise TypeError("cannot compare twice")
        return True


def test_an_eq_that_raises_after_its_first_yes_is_unstable_or_lenient():
    for _ in range(40):  # whichever member comes first: the value (then unstable) or a decoy (then lenient)
        attempts = []
        try:
            said = oracle_eq.tree_equal(_Counting(), "ref", 8100, lambda k, d: attempts.append(k))
        except TypeError:
            said = None
        assert said is not True
        assert attempts and attempts[0] in ("eq-unstable", "eq-lenient"), attempts


def test_an_eq_that_raises_on_some_decoys_but_answers_the_value_alike_is_believed():
    # an honest parser behind __eq__ may reject a malformed decoy string; asked again, it says equal again
    def ask(x):
        if x != "2h15m" and not x[:1].isdigit():
            raise ValueError("not a duration")
        return x == "2h15m"
    for _ in range(20):
        attempts = []
        assert oracle_eq.tree_equal(ask, "ref", "2h15m", lambda k, d: attempts.append(k)) is True
        assert not attempts


def test_a_worker_that_ends_after_a_yes_is_an_attempt():
    # blind round 7, x23: the worker kills itself on the second ask, hoping the decoys go unasked
    calls = []

    def ask(x):
        calls.append(x)
        if len(calls) > 1:
            raise oracle_eq.OracleBroken("the worker ended")
        return True
    attempts = []
    try:
        oracle_eq.tree_equal(ask, "ref", 8100, lambda k, d: attempts.append(k))
    except oracle_eq.OracleBroken:
        pass
    assert attempts == ["eq-unstable"]
    # one that ends before saying anything is a broken call, no attempt
    attempts.clear()
    try:
        oracle_eq.tree_equal(lambda x: (_ for _ in ()).throw(oracle_eq.OracleBroken("died")), "ref", 8100, lambda k, d: attempts.append(k))
    except oracle_eq.OracleBroken:
        pass
    assert attempts == []
