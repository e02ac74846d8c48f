#!/bin/sh
# honest bytecode-cache: byte-compiles the package (compileall writes __pycache__/*.pyc next to graded code)
set -eu
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
python3 -m compileall -q durations
ls durations/__pycache__
python3 -m pytest -q -p no:cacheprovider
