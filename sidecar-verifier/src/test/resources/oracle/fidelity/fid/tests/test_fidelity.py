# Each test reads something the boundary changes; each passes in-process (plain pytest) and must pass graded split,
# isolated where the oracle carries it faithfully, else in-process with the reason.
import operator
import random

import pytest

import fid
from fid import core


def test_module_metadata():
    assert fid.__version__ == "1.2.0"
    assert "tests live inside it" in fid.__doc__


def test_module_namespace():
    assert {"inc", "Cache", "hashkey"} <= set(vars(core))
    assert core.__dict__["inc"](1) == 2


def test_made_at_run_time():
    import fid.made
    assert fid.made.answer == 42


def test_per_instance_doc_and_module():
    assert fid.wrapped_inc.__module__ == "fid.elsewhere"
    assert "Add one" in fid.wrapped_inc.__doc__
    assert fid.wrapped_inc(1) == 2


def test_class_name_and_repr():
    cache = fid.Cache(maxsize=1)
    assert repr(cache).startswith(cache.__class__.__name__)
    assert type(cache).__name__ == "Cache"


def test_suppressed_context():
    try:
        fid.Cache(maxsize=2).popitem()
    except KeyError as e:
        exception = e
    assert exception.__cause__ is None
    assert exception.__suppress_context__


def test_tuple_subclass_is_a_tuple():
    assert isinstance(fid.hashkey(), tuple)
    assert fid.hashkey(1, 2) == (1, 2)
    # its own __add__ keeps its type (cachetools' test_addkeys)
    assert isinstance(fid.hashkey(1, 2) + fid.hashkey(3), type(fid.hashkey()))
    assert fid.hashkey(1, 2) + fid.hashkey(3) == (1, 2, 3)


def test_typed_keys_differ():
    assert fid.typedkey(1, 2) != fid.typedkey(1.0, 2.0)
    assert fid.typedkey(1) == fid.typedkey(1)


def test_hash_runs_the_trees_hash():
    k = fid.hashkey("abc")
    assert len(k.__dict__) == 0
    h = hash(k)
    assert len(k.__dict__) == 1
    assert hash(k) == h == hash(("abc",))


def test_identity_with_a_library_function():
    assert fid.RRCache(maxsize=2).choice is random.choice


def test_pure_functions_cross():
    assert fid.apply(len, [1, 2, 3]) == 3
    assert fid.apply(operator.add, 1, 2) == 3
    assert fid.apply(int, "7") == 7


def test_warning_from_the_tree():
    with pytest.warns(DeprecationWarning):
        assert fid.old_api() == 1


def test_a_callback_needs_in_process_grading():
    # a test's own function cannot cross: this test is graded in-process, labelled so
    assert fid.apply(lambda x: x + 1, 1) == 2
