# The per-test round-trip budget (oracle_conn.Conn.budget): a test whose own loop calls the tree past it is stopped at
# once, recorded once as needing in-process grading with the reason `round-trip-budget` and what its round trips were,
# and every later request of it fails without a round trip; the next test's budget is whole. Real worker, unboxed.
import pytest

import oracle_conn

TREE = {"calc.py": '''
def add(a, b):
    return a + b


def numbers(n):
    return iter(range(n))
'''}


def test_a_loop_past_the_budget_stops_and_is_recorded_once(oracle_tree):
    w = oracle_tree(TREE, "calc")
    w.conn.budget = 50
    w.conn.start_test()
    total = 0
    with pytest.raises(oracle_conn.NeedsInProcess, match="round-trip-budget"):
        for _ in range(10_000):
            total = w.mod.add(total, 1)
    assert total == 25 and w.conn.trips == 51  # a module's function: a read and a call each
    calls = w.conn.calls
    for _ in range(1000):  # a test that catches it goes on: each request fails at once, with no round trip
        try:
            w.mod.add(1, 1)
        except oracle_conn.NeedsInProcess:
            pass
    assert w.conn.calls == calls
    assert len(w.rec.needs) == 1 and w.rec.needs[0].startswith("round-trip-budget: more than 50 round trips")
    assert "(get 26, call 25)" in w.rec.needs[0], w.rec.needs


def test_the_reason_names_what_the_round_trips_were(oracle_tree):
    # a tree that answers an iterator instead of a list makes each item a round trip: the reason says so, for a reader
    w = oracle_tree(TREE, "calc")
    w.conn.budget = 100
    w.conn.start_test()
    with pytest.raises(oracle_conn.NeedsInProcess):
        list(w.mod.numbers(1000))
    assert w.rec.needs[0].startswith("round-trip-budget: more than 100 round trips to the worker (next 97, "), w.rec.needs


def test_the_next_test_starts_with_a_whole_budget_and_none_means_no_budget(oracle_tree):
    w = oracle_tree(TREE, "calc")
    w.conn.budget = 20
    w.conn.start_test()
    for _ in range(10):
        w.mod.add(1, 2)
    w.conn.start_test()
    assert [w.mod.add(i, 0) for i in range(10)] == list(range(10))
    assert w.rec.needs == []
    w.conn.budget = None
    assert sum(w.mod.add(i, 0) for i in range(500)) == sum(range(500))


# blind round 11 (x21/x22/x43): objects whose "equal" the isolated rule refuses (unhashable, no value of their own, an
# __eq__ that verifies a candidate) cost the oracle several checks per comparison; counted in the test's budget, those
# pushed a loop test into in-process grading, where the verifying __eq__ is believed
STEER = {"calc.py": '''
class Verifier:
    __hash__ = None

    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return type(other) is int and str(other) == self.text


def parse(text):
    return Verifier(text)
'''}


def test_a_comparisons_checks_cost_the_grader_not_the_tests_budget(oracle_tree):
    w = oracle_tree(STEER, "calc")
    w.conn.budget = 100
    w.conn.start_test()
    parse = w.mod.parse
    bad = [n for n in range(30) if parse(str(n)) != n]  # each: a call and a comparison the oracle checks
    assert bad == list(range(30))  # unbacked: not equal, isolated
    assert w.rec.needs == [] and w.rec.broken == [], (w.rec.needs, w.rec.broken)
    assert w.conn.trips <= 61 and w.conn.checks > w.conn.trips and w.conn.refused == 30, (w.conn.trips, w.conn.checks)


def test_a_loop_past_the_budget_after_refused_equality_fails_isolated_as_an_attempt(oracle_tree):
    w = oracle_tree(STEER, "calc")
    w.conn.budget = 100
    w.conn.start_test()
    parse = w.mod.parse
    with pytest.raises(oracle_conn.OracleBroken, match="refused"):
        [n for n in range(1000) if parse(str(n)) != n]
    assert w.rec.needs == [], w.rec.needs  # never graded in-process, where the verifying __eq__ would be believed
    assert w.rec.broken[0].startswith("round-trip-budget: the test ran past"), w.rec.broken
    assert [a["kind"] for a in w.conn.attempts.items] == ["budget-steer"], w.conn.attempts.items
    calls = w.conn.calls
    with pytest.raises(oracle_conn.OracleBroken):  # and every later request of it fails at once
        parse("1")
    assert w.conn.calls == calls and len(w.conn.attempts.items) == 1


def test_an_honest_loop_of_backed_comparisons_past_the_budget_still_falls_back(oracle_tree):
    w = oracle_tree({"calc.py": '''
class Seconds:
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return other == self.n

    def __hash__(self):
        return hash(self.n)


def seconds(n):
    return Seconds(n)
'''}, "calc")
    w.conn.budget = 100
    w.conn.start_test()
    with pytest.raises(oracle_conn.NeedsInProcess, match="round-trip-budget"):
        for n in range(1000):
            assert w.mod.seconds(n) == n
    assert w.rec.broken == [] and w.conn.attempts.items == []
    assert "compare" in w.rec.needs[0], w.rec.needs
