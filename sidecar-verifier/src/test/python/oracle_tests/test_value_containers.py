# A value-type subclass of the tree that redefines a container method (blind round 21, h08: a validated NamedTuple Span
# with a half-open `__contains__`) answers with its own method under the oracle, as in-process: its mirror used tuple's
# `in`, and `4 in Span(2, 5)` failed an honest fix. A slice crosses by value (h06: `zip(merged, merged[1:])` over a
# list subclass the tree returned sent an honest test to in-process grading, where its pass did not count). Methods it does not redefine stay the base value's (no round trip).
TREE = {"span.py": """
    from typing import NamedTuple


    class _Bounds(NamedTuple):
        start: int
        end: int


    class Span(_Bounds):
        def __contains__(self, x):
            return self.start <= x < self.end

        def __len__(self):
            return self.end - self.start

        def __iter__(self):
            return iter(range(self.start, self.end))


    class Plain(NamedTuple):
        a: int
        b: int


    class SpanList(list):
        @property
        def total(self):
            return sum(len(s) for s in self)


    def spans(*pairs):
        return SpanList(Span(a, b) for a, b in pairs)


    def span(a, b):
        return Span(a, b)


    def plain(a, b):
        return Plain(a, b)
    """}


def test_a_redefined_contains_len_and_iter_are_the_trees(oracle_tree):
    w = oracle_tree(TREE, "span")
    s = w.mod.span(2, 5)
    assert 4 in s
    assert 5 not in s and 2 in s
    assert len(s) == 3
    assert list(s) == [2, 3, 4]
    assert s == (2, 5)  # == stays the base value's


def test_a_namedtuple_that_redefines_nothing_keeps_tuples_methods(oracle_tree):
    w = oracle_tree(TREE, "span")
    p = w.mod.plain(7, 9)
    assert 7 in p and 8 not in p
    assert len(p) == 2 and list(p) == [7, 9] and p[1] == 9


def test_a_slice_of_the_trees_sequence_crosses(oracle_tree):
    w = oracle_tree(TREE, "span")
    merged = w.mod.spans((1, 3), (5, 9), (12, 14))
    pairs = list(zip(merged, merged[1:]))
    assert len(pairs) == 2 and all(a.end < b.start for a, b in pairs)
    assert merged[::2] == [(1, 3), (12, 14)] and merged[-1:] == [(12, 14)]
    assert merged.total == 8
