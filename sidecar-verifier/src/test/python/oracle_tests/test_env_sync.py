# The variables, working folder and umask a test sets in the trusted process reach the code under test in its worker
# (oracle_env), and the variables the tree sets come back only where they are its own. A real (unboxed) worker.
import os
import subprocess
import sys

import pytest

import oracle_env

TREE = {"envtree.py": """
    import os


    def get(name):
        return os.environ.get(name)


    def put(name, value):
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


    def cwd():
        return os.getcwd()


    def umask():
        old = os.umask(0)
        os.umask(old)
        return old
    """}


@pytest.fixture
def synced(oracle_tree, tmp_path):
    w = oracle_tree(TREE, "envtree")
    sync = w.conn.sync = oracle_env.EnvSync(str(tmp_path), None)
    yield w
    sync.uninstall()


def test_a_variable_the_test_sets_reaches_the_tree_and_goes_when_the_test_undoes_it(synced, monkeypatch):
    mod = synced.mod
    assert mod.get("CALC_MODE") is None
    monkeypatch.setenv("CALC_MODE", "fast")
    assert mod.get("CALC_MODE") == "fast"
    monkeypatch.delenv("HOME")  # one the worker holds too: gone there while the test has it gone
    assert mod.get("HOME") is None
    monkeypatch.undo()
    assert mod.get("CALC_MODE") is None
    assert mod.get("HOME") is not None  # the worker's own value again


def test_a_call_after_no_change_carries_nothing(synced, monkeypatch):
    monkeypatch.setenv("CALC_MODE", "fast")
    sent = []
    write = synced.conn._roundtrip

    def spy(msg):
        sent.append(msg)  # as sent: the connection adds what it carries
        return write(msg)
    synced.conn._roundtrip = spy
    assert synced.mod.get("CALC_MODE") == "fast"
    assert synced.mod.get("CALC_MODE") == "fast"
    assert [m for m in sent if "env" in m] == sent[:1]


def test_the_graders_own_variables_never_cross(synced, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_REPORT_NONCE", "secret")
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "x.py::t (call)")
    assert synced.mod.get("CRUCIBLE_REPORT_NONCE") is None
    assert synced.mod.get("PYTEST_CURRENT_TEST") != "x.py::t (call)"  # (this unboxed worker inherited pytest's own)


def test_the_working_folder_and_umask_reach_the_tree(synced, monkeypatch, tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)
    assert synced.mod.cwd() == str(sub)
    old = os.umask(0o027)
    try:
        assert synced.mod.umask() == 0o027
    finally:
        os.umask(old)


def test_a_folder_the_workers_box_does_not_show_sends_the_test_in_process(synced, monkeypatch, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)
    synced.mod.cwd()
    assert any("does not show" in n for n in synced.rec.needs), synced.rec.needs


def test_a_variable_the_tree_creates_is_seen_here_but_not_by_a_child_process(synced):
    synced.mod.put("A_NEW_KEY", "on")
    try:
        assert os.environ.get("A_NEW_KEY") == "on"
        child = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('A_NEW_KEY'))"],
                               capture_output=True, text=True, env=None).stdout.strip()
        assert child == "None"
        synced.mod.put("A_NEW_KEY", None)
        assert "A_NEW_KEY" not in os.environ
    finally:
        os.environ._data.pop(b"A_NEW_KEY", None)


def test_a_name_a_test_set_and_undid_is_free_for_the_tree_again(synced, monkeypatch):
    # psf/requests: tests monkeypatch no_proxy; a later test has the tree's set_environ set it and reads it here
    monkeypatch.setenv("no_proxy_x", "from-a-test")
    synced.mod.put("no_proxy_x", "from-the-tree")
    assert os.environ["no_proxy_x"] == "from-a-test"  # the test holds it: the tree's value stays in its worker
    monkeypatch.undo()
    try:
        synced.mod.put("no_proxy_x", "from-the-tree")
        assert os.environ.get("no_proxy_x") == "from-the-tree"
        synced.mod.put("no_proxy_x", None)
        assert "no_proxy_x" not in os.environ
    finally:
        os.environ._data.pop(b"no_proxy_x", None)


def test_the_tree_cannot_change_what_this_process_holds(synced, monkeypatch):
    monkeypatch.setenv("EXPECTED_TZ", "UTC")  # the test's own: the tree's value must not replace it here
    synced.mod.put("EXPECTED_TZ", "Mars/Olympus")
    synced.mod.put("PATH", "/tree/bin")
    synced.mod.put("BASH_ENV", "/tree/evil.sh")
    synced.mod.put("PYTHONSTARTUP", "/tree/evil.py")
    assert os.environ["EXPECTED_TZ"] == "UTC"
    assert os.environ["PATH"] != "/tree/bin"
    assert "BASH_ENV" not in os.environ and "PYTHONSTARTUP" not in os.environ


def test_a_private_file_the_tree_writes_in_the_scratch_folder_is_readable_here(oracle_tree, tmp_path_factory, monkeypatch):
    # psf/requests' extract_zipped_paths: tempfile.mkstemp (0600) then os.replace into the scratch folder; the trusted
    # process runs as another uid than its worker, so its test could not read the file (oracle_audit_probes)
    scratch = tmp_path_factory.mktemp("scratch")
    monkeypatch.setenv("TMPDIR", str(scratch))  # the worker's scratch folder (this unboxed worker inherits it)
    w = oracle_tree({"mk.py": """
        import os
        import tempfile


        def make(name, data):
            fd, tmp = tempfile.mkstemp(dir=os.environ["TMPDIR"])
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            final = os.path.join(os.environ["TMPDIR"], name)
            os.replace(tmp, final)
            return final


        def private(name):
            fd = os.open(os.path.join(os.environ["TMPDIR"], name), os.O_WRONLY | os.O_CREAT, 0o600)
            os.close(fd)
        """}, "mk")
    p = w.mod.make("member.py", b"data")
    assert oct(os.stat(p).st_mode & 0o777) == oct(0o666)
    w.mod.private("own.txt")
    assert oct(os.stat(scratch / "own.txt").st_mode & 0o777) == oct(0o666)
