# The wire's graph form (oracle_wire._graph/_ungraph): a value past the tree form's depth, or one that contains itself,
# crosses whole, identity and cycles kept, through frames whose JSON stays shallow; a decoder bomb and a malformed graph
# (the worker is untrusted: its frames may be forged) are refused as WireError, never a crash or a hang of the reader.
import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev",
                                                "crucible", "verifier", "grade", "oracle")))

import oracle_wire as w  # noqa: E402


def _no_ref(v):
    raise TypeError("no reference expected: %r" % (v,))


def _cross(v):
    tagged = w.encode(v, _no_ref)
    frame = []
    w.write_frame(frame.append, tagged)
    return tagged, w.decode(w.parse_frame(frame[0][4:]), None)


def test_shallow_values_keep_the_tree_form():
    tagged, got = _cross([1, "a", {"b": (2, 3)}])
    assert tagged == ["l", [1, "a", ["d", [["b", ["t", [2, 3]]]]]]] and got == [1, "a", {"b": (2, 3)}]


def test_cycles_through_lists_dicts_and_tuples_are_kept():
    x = {"name": "root", "kids": []}
    x["kids"].append(({"parent": x}, frozenset({1, 2})))
    tagged, got = _cross([x, x])
    assert tagged[0] == "G"
    assert got[0] is got[1] and got[0]["kids"][0][0]["parent"] is got[0] and got[0]["kids"][0][1] == frozenset({1, 2})


def _depth(v):  # iterative: == on a value this deep passes the interpreter's recursion limit under pytest
    d = 0
    while type(v) in (list, tuple):
        v, d = v[0], d + 1
    return d, v


def test_deep_values_cross_up_to_the_graph_depth_and_a_bomb_does_not():
    v = b"x"
    for i in range(w.MAX_GRAPH_DEPTH):
        v = (v,) if i % 2 else [v]
    assert _depth(_cross(v)[1]) == (w.MAX_GRAPH_DEPTH, b"x")
    v = [v]
    with pytest.raises(w.WireDepth):
        w.encode(v, _no_ref)


@pytest.mark.parametrize("graph", [
    ["G", 0, [["t", [0]]]],  # a tuple that contains itself: no Python value is that
    ["G", 0, [["t", [1]], ["fs", [0]]]],
    ["G", 0, [["l", [1]]]],  # a member number past the table
    ["G", 0, [["s", [1]], ["l", []]]],  # an unhashable set member
    ["G", 0, [["d", [1, 1]], ["l", []]]],  # an unhashable key
    ["G", 0, [["l", []], ["l", []]]],  # a node no path reaches
    ["G", 0, [["v", ["l", []]]]],  # a value node holding a container
    ["G", 0, [["d", [0]]]],  # a key without a value
    ["G", 1, [["l", []]]],
    ["G", 0, []],
])
def test_a_malformed_graph_is_garbage(graph):
    with pytest.raises(w.WireError):
        w.decode(graph, None)


def test_a_forged_graph_past_the_depth_is_refused_by_the_reader():
    nodes = [["l", [i + 1]] for i in range(w.MAX_GRAPH_DEPTH + 5)] + [["v", 1]]
    with pytest.raises(w.WireError, match="deeper"):
        w.decode(["G", 0, nodes], None)
