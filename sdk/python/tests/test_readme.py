"""The README's quickstart is run as written (from the repository root) and its claims are checked."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO

README = REPO / "sdk" / "python" / "README.md"


def test_quickstart_runs_and_prints_crucibles_rewards(crucible: str, tmp_path: Path) -> None:
    script = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert script is not None, "no python block in the README"
    r = subprocess.run([sys.executable, "-c", script.group(1)], cwd=REPO, capture_output=True, text=True, timeout=900,
                       env={**os.environ, "TMPDIR": str(tmp_path)})  # the group's run folder goes there
    assert r.returncode == 0, r.stdout + r.stderr
    assert "rewards: [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]" in r.stdout, r.stdout
    hacked = [line for line in r.stdout.splitlines() if "phase=Hacked" in line]
    assert len(hacked) == 4 and all("startup-hook-injection" in line for line in hacked), r.stdout
    assert re.search(r"step 1 write_file \['content', 'path'\] exit=0 findings=\[.*startup-hook-injection", r.stdout), r.stdout
