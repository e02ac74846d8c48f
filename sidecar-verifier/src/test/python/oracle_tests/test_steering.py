# Steering a test into in-process grading (blind round 10, x44; oracle_remote.Session.forward): a function that answers
# plain strings returns, for the one code shaped like the test's concatenation, a reference with __add__, so the test's
# value goes into the tree's operators and the test is graded again in-process. Recorded as a `steer` attempt; a value
# type that is always a reference (Money + 3), or a function whose other answers are of another type, is not. Real
# worker, unboxed.
import pytest

TREE = '''
class Decoded:
    def __init__(self, text):
        self.text = text

    def __add__(self, other):
        return self.text + other if isinstance(other, str) else NotImplemented


def decode(code):
    return Decoded("a" * 10 + "bb") if code == "10a2b" else code[-1] * int(code[:-1])


class Money:
    def __init__(self, cents):
        self.cents = cents

    def __add__(self, other):
        return Money(self.cents + other * 100)


class Quantity:
    def __init__(self, v):
        self.v = v

    def __mul__(self, other):
        return Quantity(self.v * other)


def parse(text):
    return float(text) if text[-1].isdigit() else Quantity(float(text[:-1]))
'''


@pytest.fixture()
def world(oracle_tree):
    w = oracle_tree({"codec.py": TREE}, "codec")
    yield w.conn, w.mod


def _steer(conn):
    return [a for a in conn.attempts.items if a["kind"] == "steer"]


def test_a_function_answering_strings_that_answers_a_reference_with_add_is_steering(world):
    conn, codec = world
    assert codec.decode("3a") == "aaa"
    assert codec.decode("10a2b") + "c" == "a" * 10 + "bbc"
    assert any(e["rule"] == "remote-with-plain" for e in conn.test.events)
    found = _steer(conn)
    assert len(found) == 1 and "plain str" in found[0]["detail"], conn.attempts.items


def test_a_value_type_and_a_function_of_another_answer_type_are_not(world):
    conn, codec = world
    m = codec.Money(5) + 3
    assert m.cents == 305
    assert codec.parse("2.5") == 2.5
    assert (codec.parse("3m") * 2).v == 6.0  # a float elsewhere, an int operand here
    assert _steer(conn) == [], conn.attempts.items
