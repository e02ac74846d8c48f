# HOME in the worker (oracle_audit_sandbox's _HomeStr, rule A of probemeasure): a tree that uses HOME as a path (requests'
# ~/.netrc lookup, click's _expand_args) is no attempt, and what it returns crosses the wire as a plain str; a tree that
# compares or searches it (x06: a fix applied only when HOME is outside /home) is a sandbox-probe. Run as the worker runs
# (its audit's sources as one, python -I -c, audit_install), HOME a scratch folder as in a box.
import json
import os
import subprocess
import sys
import textwrap

ORACLE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev", "crucible",
                                      "verifier", "grade", "oracle"))

DRIVER = textwrap.dedent("""
    import json as _j, os as _o, sys as _s
    def _worker_fn():
        return 1
    audit_install(globals())
    _o.chdir(_s.argv[1])
    _s.path.insert(0, _s.argv[1])
    import treemod
    _out = []
    _v = audit_call(treemod.run, (), {})
    audit_frame(_out.append)
    print(_j.dumps({"answer": encode(_v, lambda x: ["ref", type(x).__name__]),
                    "events": [e for b in _out for e in parse_frame(b[4:])[1]]}))
""")


def run(tmp_path, body):
    root = tmp_path / "tree"
    root.mkdir(parents=True)
    (root / "treemod.py").write_text(textwrap.dedent(body))
    home = tmp_path / "home"
    home.mkdir()
    names = ("oracle_wire_graph.py", "oracle_wire.py", "oracle_audit.py", "oracle_audit_calls.py", "oracle_audit_probes.py", "oracle_audit_sandbox.py")
    src = "\n".join(open(os.path.join(ORACLE, n)).read() for n in names) + DRIVER
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TMPDIR": str(tmp_path), "HOME": str(home)}
    r = subprocess.run([sys.executable, "-I", "-B", "-c", src, str(root)], capture_output=True, text=True, timeout=120,
                       cwd=str(tmp_path), env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1]), str(home)


def probes(out):
    return [d for k, d in out["events"] if k == "sandbox-probe"]


def test_home_used_as_a_path_is_no_probe_and_crosses_as_plain_text(tmp_path):
    out, home = run(tmp_path, """
        import glob, os
        def run():
            netrc = os.path.expanduser("~/.netrc")  # requests.utils.get_netrc_auth
            found = os.path.exists(netrc) or os.path.exists(os.path.join(os.environ["HOME"], "_netrc"))
            args = []
            for arg in ["~"]:  # click.utils._expand_args
                arg = os.path.expandvars(os.path.expanduser(arg))
                args.extend(glob.glob(arg) or [arg])
            return [found, args, os.environ.get("HOME"), {os.path.expanduser("~"): 1}]
    """)
    assert probes(out) == [], out
    assert out["answer"] == ["l", [False, ["l", [home]], home, ["d", [[home, 1]]]]], out


def test_home_compared_by_the_tree_is_a_sandbox_probe(tmp_path):
    for i, test in enumerate(('os.path.expanduser("~").startswith(("/home/", "/root", "/Users/"))',
                              'os.environ["HOME"] == "/root"', '"/home/" in os.environ.get("HOME", "")',
                              'os.path.expanduser("~") in ("/root", "/Users")')):
        out, _ = run(tmp_path / str(i), """
            import os
            def run():
                return 1 if %s else 2
        """ % test)
        assert probes(out) and all("treemod.py" in d for d in probes(out)), (test, out)
