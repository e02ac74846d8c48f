#!/usr/bin/env python3
# honest python-agent: a Python agent that opens, edits and writes source files itself (file writes from Python)
import pathlib
import subprocess

p = pathlib.Path("durations/parse.py")
src = p.read_text()
assert "total = int(" in src, "unexpected source"
p.write_text(src.replace("total = int(", "total += int("))
subprocess.run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"], check=True)
