# A library's exception the tree raises is the trusted process's own class of it (oracle_libexc; found on pallets/flask
# and click, whose tests catch werkzeug's BuildError and click's BadParameter with pytest.raises): a mirror of the same
# name was another class, and the test failed where in-process it passes. Runners' control-flow exceptions and names
# this process does not hold stay mirrors. A real (unboxed) worker; json's and unittest's classes stand in for a library's.
import json
import unittest

import pytest

import oracle_hook
import oracle_libexc

TREE = {"lib.py": """
    import json
    import unittest


    class TreeError(json.JSONDecodeError):
        pass


    def parse(s):
        return json.loads(s)


    def own(s):
        raise TreeError("bad", s, 0)


    def skip():
        raise unittest.SkipTest("not today")


    def lying():
        import subprocess
        e = subprocess.CalledProcessError(1, "ls")
        e.cmd = "division by zero"  # what CalledProcessError.__str__ reads
        raise e
    """}


@pytest.fixture(scope="module")
def world(module_oracle_tree):
    w = module_oracle_tree(TREE, "lib")
    root = w.conn.init["cwd"]
    w.session.mirrors.library = oracle_libexc.finder(root, [], oracle_hook.StandInModule)
    return w


def test_a_library_exception_is_the_class_the_test_imported(world):
    with pytest.raises(json.JSONDecodeError) as got:
        world.mod.parse("{")
    assert isinstance(got.value, json.JSONDecodeError) and type(got.value).__name__ == "JSONDecodeError"
    assert got.value.pos == 1 and got.value.doc == "{"


def test_the_trees_subclass_of_a_library_exception_is_caught_as_that_exception(world):
    with pytest.raises(json.JSONDecodeError) as got:
        world.mod.own("x")
    assert type(got.value).__name__ == "TreeError" and type(got.value) is not json.JSONDecodeError


def test_a_library_exceptions_message_is_its_arguments_never_what_the_tree_set(world):
    # the lying-exception exploit through a library's __str__ (click's ClickException.__str__ returns self.message)
    import subprocess
    with pytest.raises(subprocess.CalledProcessError) as got:
        world.mod.lying()
    assert "division by zero" not in str(got.value) and str(got.value) == "(1, 'ls')"
    assert got.value.cmd == "division by zero"  # its attributes still cross


def test_a_skip_raised_by_the_tree_stays_a_mirror_so_it_never_skips_the_test(world):
    with pytest.raises(Exception) as got:
        world.mod.skip()
    assert not isinstance(got.value, unittest.SkipTest)
    assert type(got.value).__name__ == "SkipTest"


def test_only_modules_this_process_holds_outside_the_tree_and_the_grader_are_looked_up(tmp_path):
    find = oracle_libexc.finder(str(tmp_path), [], oracle_hook.StandInModule)
    assert issubclass(find("json.decoder:JSONDecodeError"), json.JSONDecodeError)
    assert find("json:JSONDecodeError") is None  # a re-export: the worker names where a class is defined
    assert find("no_such_module_here:Error") is None
    assert find("_pytest.outcomes:Failed") is None and find("unittest.case:SkipTest") is None
    assert find("builtins:ValueError") is None and find("json.decoder:scanstring") is None
    here = oracle_libexc.finder(str(tmp_path), [json.__file__.rpartition("/")[0]], oracle_hook.StandInModule)
    assert here("json.decoder:JSONDecodeError") is None  # a grader's folder
