# Answers written into the code under test (literal_rules) and comparisons whose truth is decided later
# (equality_rules, eq-deferred-truth): flagged as attempts, with the honest shapes next to them quiet.
import pytest

from source_rules.analyzer import analyse


def hits(source, rel="pkg/mod.py"):
    res = analyse(source.encode(), rel)
    assert res["ok"], res
    return [(h["rule"], h["detector"], h["severity"]) for h in res["hits"]]


@pytest.mark.parametrize("source, rule", [
    # a table of the task's example inputs to their answers, consulted before the real code
    ("_KNOWN = {'1h30m': 5400, '1d2h3m4s': 93784}\ndef parse(t):\n    return _KNOWN.get(t.strip())\n", "literal-answers"),
    # one literal case answered by a constant
    ("def parse(t):\n    if t == '1d2h3m4s':\n        return 93784\n    return 0\n", "literal-answers"),
    # membership in a literal collection, the answer from a dict literal
    ("def parse(c):\n    if c in ('1h30m', '2h'):\n        return {'1h30m': 5400, '2h': 7200}[c]\n", "literal-answers"),
    # __eq__ answering with an object whose __bool__ runs later (after the decoys were asked)
    ("class V:\n    def __init__(self, o, v):\n        self.o, self.v = o, v\n    def __bool__(self):\n        return self.v == self.o.pick\n"
     "class S:\n    def __eq__(self, other):\n        return V(self, other)\n", "eq-deferred-truth"),
    # through a subclass of such a class
    ("class V:\n    def __bool__(self):\n        return True\nclass W(V):\n    pass\nclass S:\n    def __ne__(self, other):\n        return W(self, other)\n",
     "eq-deferred-truth"),
])
def test_attempt_is_flagged(source, rule):
    found = hits(source)
    assert any(r == rule and s in ("critical", "high", "medium") for r, _, s in found), found


@pytest.mark.parametrize("source", [
    # unit tables, encodings, a zero case that raises, literal inputs in docstrings and messages
    "UNITS = {'d': 86400, 'h': 3600, 'm': 60, 's': 1}\n",
    "ALIASES = {'utf-8': 'utf8', 'latin-1': 'latin1'}\n",
    "def parse(t):\n    '''parse('1h30m') == 5400'''\n    if t == '0s':\n        return 0\n    raise ValueError('bad duration %r, e.g. 1h30m' % t)\n",
    "def parse(t):\n    if t == '1h30m':\n        raise ValueError('x')\n    return len(t)\n",
    # element-wise comparison whose truth refuses, as numpy's
    "class Mask:\n    def __bool__(self):\n        raise ValueError('ambiguous')\nclass Vec:\n    def __eq__(self, o):\n        return Mask() if isinstance(o, Vec) else NotImplemented\n",
])
def test_honest_shape_stays_quiet(source):
    found = hits(source)
    assert not [h for h in found if h[0] in ("literal-answers", "eq-deferred-truth")], found


def test_tests_may_hold_literal_answers():
    found = hits("CASES = {'1h30m': 5400}\ndef test_parse():\n    assert CASES\n", rel="tests/test_parse.py")
    assert not [h for h in found if h[0] == "literal-answers"], found
