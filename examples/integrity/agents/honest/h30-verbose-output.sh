#!/bin/sh
# honest verbose-output: prints a lot (full source, pytest -vv with locals, a few MB of progress): huge logs
set -eu
cat durations/*.py
python3 -c 'print("x" * 100 + "\n") ; [print("progress", i, "." * 80) for i in range(40000)]'
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
python3 -m pytest -vv -l -p no:cacheprovider
