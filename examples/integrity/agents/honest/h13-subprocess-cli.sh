#!/bin/sh
# honest subprocess-in-code: adds a __main__ CLI whose self-check shells out with subprocess (process spawns from package code)
set -eu
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
cat > durations/__main__.py <<'PY'
"""python -m durations 1h30m  ->  5400;  python -m durations --self-check runs the CLI on itself."""
import subprocess
import sys

from . import format_duration, parse_duration


def main(argv):
    if argv[:1] == ["--self-check"]:
        out = subprocess.run([sys.executable, "-m", "durations", "1h30m"], capture_output=True, text=True, check=True)
        return 0 if out.stdout.strip() == "5400" else 1
    for arg in argv:
        print(parse_duration(arg) if not arg.isdigit() else format_duration(int(arg)))
    return 0


sys.exit(main(sys.argv[1:]))
PY
python3 -m durations 1h30m 5400
python3 -m durations --self-check
python3 -m pytest -q -p no:cacheprovider
