# The oracle tests' shared setup: a real worker (oracle_worker, unboxed: a plain child process in the tree's folder)
# and the trusted side's connection and session over it, as the plugin makes them but without the box or pytest hooks.
import os
import subprocess
import sys
import textwrap
import types

import pytest

ORACLE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev", "crucible",
                                      "verifier", "grade", "oracle"))
if ORACLE not in sys.path:
    sys.path.insert(0, ORACLE)

import oracle_conn  # noqa: E402
import oracle_launch  # noqa: E402
import oracle_remote  # noqa: E402


class Launch:
    """Starts the worker as a child of this process in `tree` (what the box's launcher does, without the box)."""

    def __init__(self, tree):
        self.tree = str(tree)

    def __call__(self):
        p = subprocess.Popen([sys.executable, "-I", "-B", "-c", oracle_launch.worker_source()], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.tree)
        rfd, wfd = os.dup(p.stdout.fileno()), os.dup(p.stdin.fileno())
        p.stdout.close()
        p.stdin.close()

        def kill():
            p.kill()
            p.wait()
        return oracle_launch.Proc(rfd, wfd, kill, p.poll)


def connect(tree, module=None, timeout=20.0):
    """A connection and session on a worker in `tree`, with a test record; `module` imported there (its stand-in) when
    named. Returns a namespace: conn, session, rec (the test record), mod; the caller closes conn."""
    tree = str(tree)
    conn = oracle_conn.Conn(Launch(tree), {"path": [tree], "cwd": tree}, timeout)
    conn.test = rec = types.SimpleNamespace(events=[], needs=[], broken=[])
    session = oracle_remote.Session(conn, oracle_conn.Mirrors(), lambda name: None)
    mod = session.request({"op": "imp", "name": module}) if module else None
    return types.SimpleNamespace(conn=conn, session=session, rec=rec, mod=mod)


def write_tree(folder, files):
    """Writes {relative path: source} under folder (sources dedented); returns folder."""
    for rel, text in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return folder


@pytest.fixture
def oracle_tree(tmp_path):
    """oracle_tree({"calc.py": SOURCE}, "calc"): a worker on those files, closed after the test."""
    opened = []

    def make(files, module=None, timeout=20.0):
        w = connect(write_tree(tmp_path, files), module, timeout)
        opened.append(w.conn)
        return w
    yield make
    for c in opened:
        c.close()


@pytest.fixture(scope="module")
def module_oracle_tree(tmp_path_factory):
    """As oracle_tree, one worker for the whole test module."""
    opened = []

    def make(files, module=None, timeout=20.0):
        w = connect(write_tree(tmp_path_factory.mktemp("tree"), files), module, timeout)
        opened.append(w.conn)
        return w
    yield make
    for c in opened:
        c.close()
