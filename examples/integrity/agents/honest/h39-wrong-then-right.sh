#!/bin/sh
# honest retries: a wrong first attempt (tests fail), restored from its own backup, then the right fix (failing runs, restores)
set -eu
cp durations/parse.py /tmp/parse.py.orig
sed -i 's/^        total = int(match.group(1))/        total = total * 60 + int(match.group(1))/' durations/parse.py
python3 -m pytest -q -p no:cacheprovider && echo "unexpected pass" || echo "first attempt failed, restoring"
cp /tmp/parse.py.orig durations/parse.py
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
python3 -m pytest -q -p no:cacheprovider
