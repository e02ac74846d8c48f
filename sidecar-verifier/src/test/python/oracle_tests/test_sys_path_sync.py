# sys.path and the test modules' names cross the split (oracle_syspath; found on pallets/flask): a folder a test puts
# on sys.path reaches the tree in its worker, a folder the tree puts there comes back only where it is the grading
# tree's, a folder of test files the tree could import by name sends the test in-process, and a test module's name
# finds its folder in the worker without its text. A real (unboxed) worker in its own copy of the tree ("shown"), the
# grading tree elsewhere ("root"), as the box shows them.
import os
import sys
import types

import pytest

import oracle_conn
import oracle_env
import oracle_hook
import oracle_remote
import oracle_syspath
from conftest import ORACLE, Launch, write_tree

CODE = {"pathtree.py": """
    import importlib.util
    import os
    import sys


    def origin(name):
        spec = importlib.util.find_spec(name)
        return spec.origin if spec else None


    def prepend(folder):
        sys.path.insert(0, os.path.realpath(folder))


    def drop(folder):
        sys.path.remove(os.path.realpath(folder))


    def module_file(name):
        m = sys.modules.get(name)
        return (m.__file__, sorted(k for k in vars(m) if not k.startswith("__"))) if m is not None else None
    """, "pkg/__init__.py": ""}
TESTS = {"tests/test_here.py": "SECRET = 42\n", "tests/apps/__init__.py": "", "tests/apps/app.py": "X = 1\n"}


@pytest.fixture
def split(tmp_path, monkeypatch):
    shown = str(write_tree(tmp_path / "ws", CODE))
    root = str(write_tree(tmp_path / "grade", dict(CODE, **TESTS)))
    monkeypatch.syspath_prepend(root)  # pytest's rootdir: the tree's root on this process's sys.path
    sync = oracle_env.EnvSync(root, None, shown)
    sync.paths = oracle_syspath.PathSync(oracle_hook.Tree(root), shown, [ORACLE])
    conn = oracle_conn.Conn(Launch(shown), lambda: {"path": sync.paths.view(), "cwd": shown}, 20.0)
    conn.sync = sync
    conn.test = rec = types.SimpleNamespace(events=[], needs=[], broken=[])
    session = oracle_remote.Session(conn, oracle_conn.Mirrors(), lambda name: None)
    mod = session.request({"op": "imp", "name": "pathtree"})
    yield types.SimpleNamespace(mod=mod, rec=rec, root=root, shown=shown, tmp=tmp_path, conn=conn)
    conn.close()
    sync.uninstall()


def test_the_init_path_shows_the_grading_tree_at_the_workers_copy(split):
    assert split.mod.origin("pkg") == os.path.join(split.shown, "pkg", "__init__.py")


def test_a_folder_the_test_puts_on_sys_path_reaches_the_tree(split, monkeypatch):
    extra = write_tree(split.tmp / "extra", {"side_mod_x1.py": "A = 1\n"})
    assert split.mod.origin("side_mod_x1") is None
    monkeypatch.syspath_prepend(str(extra))
    assert split.mod.origin("side_mod_x1") == str(extra / "side_mod_x1.py")
    monkeypatch.undo()
    assert split.mod.origin("side_mod_x1") is None  # gone with the test's undo
    assert not split.rec.needs


def test_a_folder_of_the_tree_the_tree_puts_on_sys_path_comes_back_at_the_trees_place(split):
    before = list(sys.path)
    try:
        split.mod.prepend(os.path.join(split.shown, "pkg"))
        assert sys.path[0] == os.path.join(split.root, "pkg")  # flask's prepare_import, then the test reads sys.path[0]
        split.mod.drop(os.path.join(split.shown, "pkg"))
        assert os.path.join(split.root, "pkg") not in sys.path
    finally:
        sys.path[:] = before


def test_a_folder_outside_the_tree_never_joins_this_process_sys_path(split):
    before = list(sys.path)
    try:
        split.mod.prepend(str(split.tmp))  # a folder the worker can write: its files would run here
        split.mod.prepend("/")
        assert sys.path == before
    finally:
        sys.path[:] = before


def test_a_folder_of_test_files_on_sys_path_sends_the_test_in_process(split, monkeypatch):
    monkeypatch.syspath_prepend(os.path.join(split.root, "tests"))
    split.mod.origin("apps")
    assert any("a folder of test files" in n and "tests" in n for n in split.rec.needs)


def test_a_test_modules_name_finds_its_folder_in_the_worker_but_not_its_text(split, monkeypatch):
    assert split.mod.module_file("test_here") is None
    monkeypatch.setitem(sys.modules, "test_here", types.ModuleType("test_here"))
    sys.modules["test_here"].__file__ = os.path.join(split.root, "tests", "test_here.py")
    sys.modules["test_here"].SECRET = 42
    got = split.mod.module_file("test_here")
    assert got == (os.path.join(split.shown, "tests", "test_here.py"), [])  # its place, never SECRET


def test_a_folder_the_tree_added_and_the_test_took_off_is_the_tests_when_it_adds_it_again(split, monkeypatch):
    before = list(sys.path)
    split.mod.prepend(os.path.join(split.shown, "tests"))  # flask's prepare_import in an earlier test
    assert sys.path[0] == os.path.join(split.root, "tests")
    sys.path[:] = before  # that test's finalizer
    split.mod.origin("pkg")
    assert not split.rec.needs
    monkeypatch.syspath_prepend(os.path.join(split.root, "tests"))  # a later test's fixture (flask's test_apps)
    split.mod.origin("apps")
    assert any("a folder of test files" in n for n in split.rec.needs)


def test_each_test_that_puts_a_folder_of_test_files_on_sys_path_is_sent_in_process(split, monkeypatch):
    # flask's test_apps fixture, once per parametrized test: undone and done again between two requests
    for _ in range(2):
        monkeypatch.syspath_prepend(os.path.join(split.root, "tests"))
        split.mod.origin("apps")
        assert any("a folder of test files" in n for n in split.rec.needs)
        monkeypatch.undo()
        split.conn.test = split.rec = types.SimpleNamespace(events=[], needs=[], broken=[])  # the next test's record


def test_a_test_that_blocks_or_fakes_a_module_in_sys_modules_is_sent_in_process(split, monkeypatch):
    # flask's run_cert tests: the tree imports by name in its worker, whose sys.modules the patch never reaches
    split.mod.origin("pkg")
    assert not split.rec.needs
    monkeypatch.setitem(sys.modules, "cryptography_x1", None)
    split.mod.origin("pkg")
    assert any("sys.modules['cryptography_x1']" in n for n in split.rec.needs)


def test_a_call_that_hands_the_tree_a_test_files_path_is_sent_in_process(split):
    # flask's config.from_pyfile(__file__): in-process it runs the test file; its worker's box shows the mask
    split.mod.module_file(os.path.join(split.root, "pkg", "__init__.py"))  # the tree's own file: stays split
    assert not split.rec.needs
    split.mod.module_file(os.path.join(split.root, "tests", "test_here.py"))
    assert any("path of a test file (tests/test_here.py)" in n for n in split.rec.needs)
