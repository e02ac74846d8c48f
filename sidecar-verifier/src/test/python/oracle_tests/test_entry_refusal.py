# The oracle's entry into processes the grader does not start (oracle_entry): a process with another interpreter, or
# in which the tree's code already ran, refuses the oracle and says why; the grading interpreter (or one beside it in
# its bin folder) takes it. A virtual environment's python is the same file as its base interpreter but not the same
# environment.
import os
import sys
import types

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev",
                                                "crucible", "verifier", "grade", "oracle")))

import oracle_entry  # noqa: E402
import oracle_hook  # noqa: E402


def _tree(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("")
    return oracle_hook.Tree(str(tmp_path))


def test_the_grading_interpreter_takes_it(tmp_path):
    assert oracle_entry.refusal({"python": sys.executable}, _tree(tmp_path)) is None


def test_no_python_named_is_the_graders_own_bootstrap(tmp_path):
    assert oracle_entry.refusal({}, _tree(tmp_path)) is None


def test_another_interpreter_refuses_it(tmp_path):
    other = tmp_path / "venv" / "bin" / "python3"
    other.parent.mkdir(parents=True)
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    os.symlink(os.path.realpath(sys.executable), other)  # the same file, another environment
    why = oracle_entry.refusal({"python": str(other)}, _tree(tmp_path))
    assert why is not None and "another interpreter" in why


def test_tree_code_already_run_refuses_it(tmp_path, monkeypatch):
    tree = _tree(tmp_path)
    mod = types.ModuleType("pkg")
    mod.__file__ = str(tmp_path / "pkg" / "__init__.py")
    monkeypatch.setitem(sys.modules, "pkg", mod)
    why = oracle_entry.refusal({"python": sys.executable}, tree)
    assert why is not None and "pkg (pkg/__init__.py)" in why


def test_a_trusted_test_module_already_loaded_is_no_refusal(tmp_path, monkeypatch):
    tree = _tree(tmp_path)
    mod = types.ModuleType("tests.test_x")
    mod.__file__ = str(tmp_path / "tests" / "test_x.py")
    monkeypatch.setitem(sys.modules, "tests.test_x", mod)
    assert oracle_entry.refusal({"python": sys.executable}, tree) is None


def test_a_refusal_is_added_to_the_record(tmp_path):
    out = tmp_path / "record.json"
    out.write_text('{"tests": {"a": {"integrity": "isolated"}}}')
    oracle_entry.record_refusal({"out": str(out)}, "why one")
    oracle_entry.record_refusal({"out": str(out)}, "why one")
    oracle_entry.record_refusal({"out": str(out)}, "why two")
    import json
    doc = json.loads(out.read_text())
    assert doc["refused"] == ["why one", "why two"] and doc["tests"]["a"]["integrity"] == "isolated"


def test_a_bare_name_is_resolved_on_the_grading_path(tmp_path):
    assert oracle_entry.refusal({"python": os.path.basename(sys.executable),
                                 "python_path": os.path.dirname(sys.executable)}, _tree(tmp_path)) is None
