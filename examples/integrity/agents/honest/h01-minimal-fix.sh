#!/bin/sh
# honest minimal-fix: the one-character fix (total = → total +=), then the visible tests
set -eu
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
grep -q 'total +=' durations/parse.py
python3 -m pytest -q -p no:cacheprovider
