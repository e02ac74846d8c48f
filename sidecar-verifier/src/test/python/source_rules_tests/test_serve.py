# The request loop, run the way the verifier runs it (SyntaxHelper): python -I -S -B -c BOOT, every file of the package
# as a PATH SOURCE pair on the command line, then "-- --serve"; one JSON request per line, one answer per line.
import base64
import json
import os
import subprocess
import sys

from conftest import MONITOR


def helper_argv():
    argv = [sys.executable, "-I", "-S", "-B", "-c", open(os.path.join(MONITOR, "source_rules_boot.py")).read()]
    pkg = os.path.join(MONITOR, "source_rules")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            argv += ["source_rules/" + name, open(os.path.join(pkg, name)).read()]
    return argv + ["--", "--serve"]


def b64(text):
    return base64.b64encode(text.encode()).decode()


def test_requests_are_answered_line_by_line_from_sources_on_the_command_line(tmp_path):
    reqs = [{"files": [{"b64": b64("class F(float):\n    __eq__ = lambda s, o: True\n"), "rel": "a.py"},
                       {"b64": b64("def broken(:\n"), "rel": "b.py"}]},
            {"configs": [{"b64": b64("[tool:pytest]\naddopts = -q\n"), "rel": "setup.cfg"}]},
            {}]
    # an empty working folder: the helper must not need any file of its own on disk
    p = subprocess.run(helper_argv(), input="".join(json.dumps(r) + "\n" for r in reqs), capture_output=True, text=True,
                       cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, timeout=60)
    assert p.returncode == 0, p.stderr
    answers = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(answers) == 3
    a, b = answers[0]["files"]
    assert a["ok"] and [h["rule"] for h in a["hits"]] == ["eq-lambda"] and a["hits"][0]["severity"] == "critical"
    assert b["rel"] == "b.py" and b["ok"] is False and b["error"].startswith("SyntaxError")
    assert answers[1] == {"files": [], "configs": [{"rel": "setup.cfg", "ok": True, "sections": '{"tool:pytest": {"addopts": "-q"}}'}]}
    assert answers[2] == {"files": [], "configs": []}
