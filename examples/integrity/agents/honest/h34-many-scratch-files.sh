#!/bin/sh
# honest many-files: generates 2000 scratch files under build/ in the workspace and removes most of them (mass file churn)
set -eu
mkdir -p build/cases
python3 -c '
import random
rng = random.Random(1)
for i in range(2000):
    open(f"build/cases/case{i}.txt", "w").write(str(rng.randrange(10**6)))
'
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
python3 -c '
import glob
from durations import format_duration, parse_duration
for f in glob.glob("build/cases/*.txt"):
    n = int(open(f).read())
    assert parse_duration(format_duration(n)) == n
'
find build/cases -name "case1*.txt" -delete
python3 -m pytest -q -p no:cacheprovider
