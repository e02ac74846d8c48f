# The worker's audit probes (oracle_audit_probes): what blind round 10 did in the worker and left no record of, run as the
# worker runs it (oracle_wire + oracle_audit + oracle_audit_calls + oracle_audit_probes as one source, python -I -c, its
# hook installed, its root set by the first chdir). Each exploit's move is an attempt; the honest look-alike is none.
import json
import os
import subprocess
import sys
import textwrap

ORACLE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev", "crucible",
                                      "verifier", "grade", "oracle"))

# run() is called, an answer's frame written, the driver waits (a tree's thread may burn CPU meanwhile), then again().
# A wait of "until:NAME" waits (up to 300 s) for the tree to make file NAME in its root instead of a fixed time: on a
# loaded machine a busy thread gets little of a fixed wait (CI at load 20-57 gave it under the audit's 0.5 s).
DRIVER = textwrap.dedent("""
    import json as _j, os as _o, sys as _s, time as _t
    _Audit.masked = staticmethod(lambda p: p.endswith("/tests/test_hidden.py"))
    def _worker_fn():
        return 1
    audit_install(globals())
    _o.chdir(_s.argv[1])
    _s.path.insert(0, _s.argv[1])
    import treemod
    _out = []
    audit_call(treemod.run, (), {})
    audit_frame(_out.append)
    if hasattr(treemod, "again"):
        if _s.argv[2].startswith("until:"):
            _end = _t.monotonic() + 300
            while not _o.path.exists(_s.argv[2][6:]) and _t.monotonic() < _end:
                _t.sleep(0.05)
        else:
            _t.sleep(float(_s.argv[2]))
        audit_call(treemod.again, (), {})
        audit_frame(_out.append)
    print(_j.dumps([e for b in _out for e in parse_frame(b[4:])[1]]))
""")


def events(tmp_path, body, wait=0.0):
    root = tmp_path / "tree"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_hidden.py").write_text("def test_x():\n    assert True\n")
    (root / "treemod.py").write_text(textwrap.dedent(body))
    shared = tmp_path / "shared"
    shared.mkdir()
    names = ("oracle_wire_graph.py", "oracle_wire.py", "oracle_audit.py", "oracle_audit_calls.py", "oracle_audit_probes.py", "oracle_audit_sandbox.py")
    src = "\n".join(open(os.path.join(ORACLE, n)).read() for n in names) + DRIVER
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TMPDIR": str(shared), "HOME": str(shared)}
    r = subprocess.run([sys.executable, "-I", "-B", "-c", src, str(root), str(wait)], capture_output=True, text=True, timeout=360,
                       cwd=str(tmp_path), env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def kinds(found):
    return {k for k, _ in found}


def test_a_walk_of_the_workers_objects_with_get_referents_is_a_gc_attempt_and_of_its_own_none(tmp_path):
    walk = events(tmp_path / "walk", """
        import gc, sys
        def run():
            return len(gc.get_referents(vars(sys.modules["__main__"]))) * 0
    """)
    assert any(k == "gc" and "get_referents" in d for k, d in walk), walk
    own = events(tmp_path / "own", """
        import gc
        class Node:
            def __init__(self):
                self.kids = [1, 2]
        def run():
            return len(gc.get_referents(Node(), [1, 2], {"a": 1})) * 0
    """)
    assert "gc" not in kinds(own), own


def test_the_workers_main_read_by_the_tree_is_a_worker_attempt_its_file_name_is_not(tmp_path):
    read = events(tmp_path / "read", """
        import sys
        def run():
            return [n for n in vars(sys.modules["__main__"]) if "write" in n]
    """)
    assert any(k == "worker" and "__main__" in d for k, d in read), read
    name = events(tmp_path / "name", """
        import sys
        def run():
            return getattr(sys.modules["__main__"], "__file__", None)
    """)
    assert "worker" not in kinds(name), name


def test_proc_net_and_a_unix_socket_outside_the_tree_are_attempts(tmp_path):
    found = events(tmp_path, """
        import socket
        def run():
            try:
                open("/proc/net/unix").read()
            except OSError:
                pass
            for addr in ("\\0crucible-probe", "/run/nothing-here.sock"):
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.connect(addr)
                except OSError:
                    pass
                finally:
                    s.close()
    """)
    assert any(k == "proc" and "/proc/net/unix" in d for k, d in found), found
    assert len([1 for k, _ in found if k == "socket"]) == 2, found


def test_a_pidfd_of_init_is_a_signal_attempt(tmp_path):
    if not hasattr(os, "pidfd_open"):
        import pytest
        pytest.skip("no os.pidfd_open here")
    found = events(tmp_path, """
        import os
        def run():
            try:
                os.close(os.pidfd_open(1))
            except OSError:
                pass
    """)
    assert any(k == "signal" and "pidfd_open(1)" in d for k, d in found), found


def test_start_up_files_and_thousands_of_scratch_files_are_attempts_a_tests_few_files_are_not(tmp_path):
    found = events(tmp_path / "bad", """
        import os, tempfile
        def run():
            d = tempfile.gettempdir()
            site = os.path.join(d, ".local", "lib", "site-packages")
            os.makedirs(site, exist_ok=True)
            open(os.path.join(site, "zz.pth"), "w").write("import os\\n")
            open(os.path.join(d, "sitecustomize.py"), "w").write("x = 1\\n")
            for i in range(10050):
                open(os.path.join(d, "f%d" % i), "w").close()
    """)
    assert [k for k, _ in found].count("startup") == 2, found
    assert any(k == "exhaust" and "shared scratch" in d for k, d in found), found
    few = events(tmp_path / "few", """
        import os, tempfile
        def run():
            d = tempfile.mkdtemp()
            for i in range(200):
                open(os.path.join(d, "f%d.txt" % i), "w").close()
    """)
    assert not kinds(few) & {"startup", "exhaust"}, few


def test_threads_busy_between_calls_are_an_exhaust_attempt_work_inside_a_call_is_not(tmp_path):
    # the thread stops once it has had 1.0 s of CPU itself (however long that takes on this machine) and says so
    busy = events(tmp_path / "busy", """
        import threading, time
        def spin():
            while time.thread_time() < 1.0:
                pass
            open("spun", "w").close()
        def run():
            threading.Thread(target=spin, daemon=True).start()
        def again():
            return 0
    """, wait="until:spun")
    assert any(k == "exhaust" and "between calls" in d for k, d in busy), busy
    pool = events(tmp_path / "pool", """
        from concurrent.futures import ThreadPoolExecutor
        def work(n):
            return sum(range(n))
        def run():
            with ThreadPoolExecutor(4) as ex:
                return list(ex.map(work, [3000000] * 8))[0] * 0
        def again():
            return run()
    """, wait=0.5)
    assert "exhaust" not in kinds(pool), pool


def test_the_test_folder_imported_as_a_package_is_a_test_source_attempt(tmp_path):
    found = events(tmp_path, """
        import importlib
        def run():
            importlib.import_module("tests")
    """)
    assert any(k == "test-source" and "test folder" in d for k, d in found), found


def test_the_test_folder_looked_up_for_its_data_is_a_test_source_attempt(tmp_path):
    # x38: pkgutil.get_data on the namespace package 'tests' finds its spec and returns None: nothing is imported
    found = events(tmp_path, """
        import importlib.util, pkgutil
        def run():
            pkgutil.get_data("tests", "data/cases.txt")
        def again():
            pkgutil.get_data("tests", "data/cases.txt")
            importlib.util.find_spec("treemod")
    """)
    assert any(k == "test-source" and "looked up the test folder" in d for k, d in found), found
    assert not any("package 'treemod'" in d for _, d in found), found


def test_a_flood_of_distinct_warnings_in_one_call_is_an_exhaust_attempt(oracle_tree):
    # blind round 11, x29: 2,000 distinct warnings a call (fake "PASSED" lines) for the trusted side to re-issue until
    # grading timed out; a library's loop warning the same text again and again is no flood
    import warnings
    import oracle_conn  # noqa: F401
    w = oracle_tree({"calc.py": '''
import warnings


def flood(n):
    for i in range(n):
        warnings.warn("case%d PASSED" % i)
    return n


def same(n):
    for _ in range(n):
        warnings.warn("deprecated: use other()", DeprecationWarning)
    return n
'''}, "calc")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert w.mod.same(5000) == 5000 and w.mod.flood(900) == 900
        assert [a for a in w.conn.attempts.items if a["kind"] == "exhaust"] == []
        assert w.mod.flood(1500) == 1500
    found = [a["detail"] for a in w.conn.attempts.items if a["kind"] == "exhaust"]
    assert len(found) == 1 and "more than 1000 distinct warnings in one call" in found[0], w.conn.attempts.items


def test_serializers_rebound_in_the_worker_are_a_worker_attempt(oracle_tree):
    # blind round 11, x40: json.dumps, JSONEncoder.encode and struct.pack patched in the worker to turn "false" into
    # "true" in whatever it writes; the worker's frames do not go through them, and the rebinding is seen
    w = oracle_tree({"calc.py": '''
import json, struct

_dumps, _pack = json.dumps, struct.pack


def patch():
    json.dumps = lambda *a, **k: _dumps(*a, **k).replace("false", "true")
    struct.pack = lambda fmt, *a: _pack(fmt, *a)
    json.JSONEncoder.encode = lambda self, o: "true"
    return False


def honest():
    return json.loads(json.dumps({"a": False}))["a"]
'''}, "calc")
    assert w.mod.honest() is False and w.conn.attempts.items == []
    assert w.mod.patch() is False  # the answer crossed as the worker encoded it
    found = sorted(a["detail"].split(" in the worker")[0].rsplit(" ", 1)[1] for a in w.conn.attempts.items if a["kind"] == "worker")
    assert found == ["json.JSONEncoder.encode", "json.dumps", "struct.pack"], w.conn.attempts.items
    assert w.mod.patch() is False and len(w.conn.attempts.items) == 3  # each rebinding recorded once


def test_counting_the_pids_a_box_shows_is_a_sandbox_probe_a_childs_group_is_not(tmp_path):
    # blind round 18, e03: the fix applied only when few pids below 400 answer os.getsid (a fresh PID namespace)
    for i, probe in enumerate(("os.getsid(pid)", "os.getpgid(pid)", "os.kill(pid, 0)")):
        found = events(tmp_path / str(i), """
            import os
            def run():
                alive = 0
                for pid in range(2, 400):
                    try:
                        %s
                        alive += 1
                    except OSError:
                        pass
                return alive
        """ % probe)
        probes = [d for k, d in found if k == "sandbox-probe"]
        assert probes and all("treemod.py" in d for d in probes), (probe, found)
        assert len(probes) == 1, (probe, probes)  # one record for the loop's line, not one per pid
    found = events(tmp_path / "honest", """
        import os, signal, subprocess, sys
        def run():
            p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
            os.killpg(os.getpgid(p.pid), signal.SIGTERM)
            p.wait()
            try:
                os.kill(p.pid, 0)  # reaped: gone, but its own child's pid is no count of the box's
            except ProcessLookupError:
                pass
            return p.returncode
    """)
    assert [d for k, d in found if k == "sandbox-probe"] == [], found
