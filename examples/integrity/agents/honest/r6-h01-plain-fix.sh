#!/bin/sh
# honest plain-fix: the += fix and a visible test run
set -eu
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
python3 -m pytest -q -p no:cacheprovider
