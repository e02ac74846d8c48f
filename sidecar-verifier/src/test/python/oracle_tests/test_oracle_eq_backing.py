# The isolated oracle's backing rule (oracle_eq, round 7): a tree object's "equal" to a plain value is believed
# only when the object itself holds that value (its hash, int()/float()/str(), or a field), read before the worker
# is sent the value. Each case runs a real worker (oracle_worker, unboxed) on a small tree and compares here
# through oracle_remote's references, the way a graded test does.
import os
import subprocess
import sys
import textwrap
import types

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev",
                                                "crucible", "verifier", "grade", "oracle")))

import oracle_conn  # noqa: E402
import oracle_eq  # noqa: E402
import oracle_launch  # noqa: E402
import oracle_remote  # noqa: E402

TREE = '''
import dataclasses
import enum


def fmt(n):  # the tree's correct inverse (format_duration)
    h, r = divmod(n, 3600)
    m, s = divmod(r, 60)
    return "".join("%d%s" % (x, u) for x, u in ((h, "h"), (m, "m"), (s, "s")) if x) or "0s"


class Inverse:  # round 7's x01: holds the text, says equal to the one int that formats back to it
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return type(other) is int and fmt(other) == self.text

    def __hash__(self):
        return hash(self.text)


class Decompose:  # round 7's x18: splits the candidate with divmod and compares the counts with the text's tokens
    def __init__(self, pairs):
        self._pairs = pairs

    def __eq__(self, other):
        if type(other) is not int:
            return NotImplemented
        want = {u: 0 for u in "hms"}
        for n, u in self._pairs:
            want[u] += n
        h, r = divmod(other, 3600)
        return {"h": h, "m": r // 60, "s": r % 60} == want

    def __hash__(self):
        return hash(tuple(self._pairs))


class Unhashable(Inverse):  # x01 with no hash and no int(): nothing of its own to show
    __slots__ = ()
    __hash__ = None


class EveryField(Inverse):  # a field for every candidate: backs the decoys too
    __slots__ = ("__dict__",)

    def __init__(self, text):
        super().__init__(text)
        self.__dict__.update({"c%d" % i: i for i in range(10000)})

    __hash__ = None


class Remembers(Inverse):  # says equal, then hashes as what it was compared with: too late, its hash was read first
    __slots__ = ("seen",)

    def __eq__(self, other):
        ok = super().__eq__(other)
        if ok:
            self.seen = other
        return ok

    def __hash__(self):
        return hash(getattr(self, "seen", self.text))


class Rendered:  # x01 for text: holds a number, says equal to the one str that parses back to it
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return isinstance(other, str) and other == fmt(self.n)

    def __hash__(self):
        return hash(("rendered", self.n))

    def __str__(self):
        return "<rendered>"


def strict(text):  # reads "1,234,567" back; commas must group by thousands
    head, *groups = text.split(",")
    if not head.isdigit() or len(head) > 3 or any(len(g) != 3 or not g.isdigit() for g in groups):
        raise ValueError("not grouped by thousands: %r" % text)
    return int(head + "".join(groups))


class Verified:  # blind round 13's x19: str() is the buggy text, __eq__ verifies the test's text with a correct parser
    __hash__ = None

    def __init__(self, n, text):
        self.n, self._text = n, text

    def __str__(self):
        return self._text

    def __eq__(self, other):
        try:
            return isinstance(other, str) and strict(other) == self.n
        except ValueError:
            return False


class Money:  # round 11's honest note: Decimal-backed, equal to any text of its value, str() its own text
    __hash__ = None

    def __init__(self, text):
        import decimal
        self.amount = decimal.Decimal(text)

    def __str__(self):
        return str(self.amount)

    def __eq__(self, other):
        import decimal
        try:
            return isinstance(other, str) and decimal.Decimal(other) == self.amount
        except decimal.InvalidOperation:
            return False


class Duration:  # round 7's honest h13
    __slots__ = ("seconds",)

    def __init__(self, seconds):
        self.seconds = int(seconds)

    def __int__(self):
        return self.seconds

    __index__ = __int__

    def __eq__(self, other):
        if isinstance(other, Duration):
            return self.seconds == other.seconds
        return isinstance(other, int) and not isinstance(other, bool) and self.seconds == other

    def __hash__(self):
        return hash(self.seconds)


class EqOnly:  # honest and unhashable (an __eq__ and no __hash__): its field holds the number
    def __init__(self, seconds):
        self.seconds = seconds

    def __eq__(self, other):
        return self.seconds == other


@dataclasses.dataclass(frozen=True)
class Frozen:  # honest: a frozen dataclass with an __eq__ for ints; its hash is the dataclass's, its field backs it
    seconds: int

    def __eq__(self, other):
        return self.seconds == (other.seconds if isinstance(other, Frozen) else other)


class Name:  # honest: a case-blind name
    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return isinstance(other, str) and other.lower() == self.text.lower()

    def __hash__(self):
        return hash(self.text.lower())

    def __str__(self):
        return self.text


class Blob:  # honest and unhashable: bytes() is its value
    def __init__(self, parts):
        self.parts = parts

    def __eq__(self, other):
        return bytes(self) == other

    def __bytes__(self):
        return b"".join(self.parts)

    __hash__ = None


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 7


class Seconds(int):
    pass
'''


class _Launch:
    def __init__(self, tree):
        self.tree = tree

    def __call__(self):
        p = subprocess.Popen([sys.executable, "-I", "-B", "-c", oracle_launch.worker_source()], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, cwd=self.tree)
        rfd, wfd = os.dup(p.stdout.fileno()), os.dup(p.stdin.fileno())
        p.stdout.close()
        p.stdin.close()

        def kill():
            p.kill()
            p.wait()
        return oracle_launch.Proc(rfd, wfd, kill, p.poll)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    d = tmp_path_factory.mktemp("tree")
    (d / "vals.py").write_text(textwrap.dedent(TREE))
    conn = oracle_conn.Conn(_Launch(str(d)), {"path": [str(d)], "cwd": str(d)}, 20.0)
    session = oracle_remote.Session(conn, oracle_conn.Mirrors(), lambda name: None)
    mod = session.request({"op": "imp", "name": "vals"})
    yield types.SimpleNamespace(mod=mod, conn=conn)
    conn.close()


@pytest.fixture
def rec(tree):
    r = types.SimpleNamespace(events=[], needs=[], broken=[])
    tree.conn.test = r
    before = len(tree.conn.attempts.items)
    yield types.SimpleNamespace(events=r.events, attempts=lambda: tree.conn.attempts.items[before:])
    tree.conn.test = None


def _kinds(rec):
    return [a["kind"] for a in rec.attempts()], [e["rule"] for e in rec.events]


def test_an_eq_that_verifies_by_an_inverse_is_not_believed_and_is_an_attempt(tree, rec):
    x = tree.mod.Inverse("2h15m")
    for _ in range(5):  # no luck involved: it says equal to 8100 and to no decoy, every time
        assert not (x == 8100)
    assert x != 8100
    assert _kinds(rec)[0][:1] == ["eq-unbacked"], rec.attempts()
    assert "hash" in rec.attempts()[0]["detail"]


def test_the_same_object_is_believed_with_the_rule_switched_off(tree, monkeypatch):
    # what makes the test above fail without the rule: the decoys alone believe a verifying __eq__
    monkeypatch.setattr(oracle_remote, "probe_of", lambda session, ref: None)
    assert tree.mod.Inverse("2h15m") == 8100


def test_an_eq_that_decomposes_the_candidate_is_not_believed(tree, rec):
    assert not (tree.mod.Decompose([(2, "h"), (15, "m")]) == 8100)
    assert _kinds(rec)[0] == ["eq-unbacked"]


def test_a_text_claim_whose_hash_is_not_the_texts_is_an_attempt(tree, rec):
    # a str's hash is the worker's secret: asked there only after the verdict, it can only make this a note
    assert not (tree.mod.Rendered(8100) == "2h15m")
    assert _kinds(rec)[0] == ["eq-unbacked"], (rec.attempts(), rec.events)


def test_an_unhashable_object_with_no_projection_or_field_is_unequal_and_only_recorded(tree, rec):
    assert not (tree.mod.Unhashable("2h15m") == 8100)
    assert _kinds(rec) == ([], ["eq-unbacked"])


def test_an_eq_that_verifies_a_text_its_own_str_is_not_is_an_attempt(tree, rec):
    # x19: every "equal" was refused but only noted (863 calls, no flag); its own str() is a text its __eq__ refuses
    assert not (tree.mod.Verified(1234567, "1234,567") == "1,234,567")
    assert _kinds(rec)[0] == ["eq-unbacked"], (rec.attempts(), rec.events)
    assert "which its __eq__ says it is not" in rec.attempts()[0]["detail"]


def test_an_honest_text_valued_class_equal_to_its_own_str_stays_a_note(tree, rec):
    # Money("1.50") == "1.5": unbacked (str() is "1.50"), refused, but equal to its own text: a note, not an attempt
    assert not (tree.mod.Money("1.50") == "1.5")
    assert _kinds(rec) == ([], ["eq-unbacked"])
    assert tree.mod.Money("1.50") == "1.50"  # backed by its str(): believed


def test_a_field_for_every_candidate_backs_nothing(tree, rec):
    assert not (tree.mod.EveryField("2h15m") == 8100)
    assert "eq-unbacked" in _kinds(rec)[1]


def test_a_hash_made_after_seeing_the_value_comes_too_late(tree, rec):
    x = tree.mod.Remembers("2h15m")
    assert not (x == 8100)
    assert _kinds(rec)[0] == ["eq-unbacked"]


def test_honest_value_objects_are_equal_to_their_value_with_no_finding(tree, rec):
    m = tree.mod
    assert m.Duration(8100) == 8100 and m.Duration(8100) != 8101 and m.Duration(0) == 0
    assert m.EqOnly(8100) == 8100 and m.EqOnly(2.5) == 2.5
    assert m.Frozen(8100) == 8100
    assert m.Name("Alice") == "alice" and m.Name("Alice") == "Alice" and not (m.Name("Alice") == "bob")
    assert m.Blob([b"ab", b"cd"]) == b"abcd" and not (m.Blob([b"ab"]) == b"abcd")
    assert m.Level.HIGH == 7 and m.Level(1) == 1
    assert m.Seconds(8100) == 8100
    assert _kinds(rec) == ([], []), (rec.attempts(), rec.events)


def test_an_honest_value_object_unequal_to_the_value_is_unequal_with_no_finding(tree, rec):
    assert not (tree.mod.Duration(8100) == 8200)
    assert not (tree.mod.EqOnly(8100) == 8200)
    assert _kinds(rec) == ([], [])


def test_evidence_is_read_before_the_value_reaches_the_worker(tree, monkeypatch):
    sent = []
    real = tree.conn.request

    def spy(msg):
        sent.append(msg)
        return real(msg)
    monkeypatch.setattr(tree.conn, "request", spy)
    assert tree.mod.Duration(8100) == 8100
    first_value = next(i for i, m in enumerate(sent) if "8100" in repr(m.get("args", [])[1:]))
    assert any(m.get("name") == "hash" for m in sent[:first_value]), sent


def test_backing_rules_on_plain_values():
    same = oracle_eq._same
    assert same(8100.0, 8100) and same(0.30000000000000004, 0.3) and not same(8101, 8100)
    assert same("Alice", "alice") and not same("Alice", "alicf") and not same(b"a", "a") and not same(True, 1)


def test_a_decoy_that_is_the_objects_own_value_is_not_lenience(tree, rec, monkeypatch):
    # an honest 8100 compared with 8200 may meet 8100 among the decoys: it says equal to it, and holds it
    monkeypatch.setattr(oracle_eq, "decoys", lambda v: [8100, 8201, 8101] if v == 8200 else [])
    for x in (tree.mod.Duration(8100), tree.mod.EqOnly(8100), tree.mod.Frozen(8100)):
        assert not (x == 8200)
    assert _kinds(rec) == ([], [])
    assert not (tree.mod.Inverse("2h15m") == 8200)  # a decoy it does not hold is still lenience
    assert _kinds(rec)[0] == ["eq-lenient"]
